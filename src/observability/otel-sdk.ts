import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PrismaInstrumentation } from '@prisma/instrumentation';

/**
 * The OpenTelemetry SDK: spans batched to OTLP over HTTP (JSON), the exporter reading
 * OTEL_EXPORTER_OTLP_ENDPOINT and its other OTEL_ variables; Prisma's spans for every statement.
 * Loaded only when tracing is on. Returns what flushes and stops it.
 */
export function startSdk(serviceName: string): () => Promise<void> {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // Also installs the AsyncLocalStorage context manager, so a statement's span finds its request's.
  provider.register();
  const stopPrisma = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new PrismaInstrumentation()],
  });
  return async () => {
    stopPrisma();
    await provider.shutdown();
  };
}
