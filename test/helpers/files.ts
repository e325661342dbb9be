/** A PNG of `length` bytes: the signature, then a pattern that shows any byte out of place. */
export function pngBytes(length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let i = 8; i < length; i++) bytes[i] = i % 251;
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return bytes;
}

/** Sends `uploadFile` as a GraphQL multipart request, the file in part "0"; `fields` are read from the stored file. */
export async function uploadFile(
  url: string,
  key: string | null,
  bytes: Uint8Array<ArrayBuffer> | string,
  type: string,
  name: string,
  fields = 'file',
) {
  const form = new FormData();
  form.set(
    'operations',
    JSON.stringify({
      query: `mutation($f: Upload!) { uploadFile(input: { file: $f }) { file { ${fields} } } }`,
      variables: { f: null },
    }),
  );
  form.set('map', JSON.stringify({ 0: ['variables.f'] }));
  form.set('0', new Blob([bytes], { type }), name);
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    body: form,
    headers: key ? { 'x-api-key': key } : {},
  });
  return { status: response.status, ...(await response.json()) } as {
    status: number;
    data?: any;
    errors?: { message: string; extensions: Record<string, any> }[];
  };
}
