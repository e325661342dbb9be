-- CreateTable
CREATE TABLE "file_chunk" (
    "name" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "file_chunk_pkey" PRIMARY KEY ("name","index")
);
