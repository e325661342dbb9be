#!/bin/sh
# Stands in for Prisma's native schema engine, which this project never downloads:
# `prisma generate` only needs the path to exist. Migrations run on the WebAssembly engine.
echo "This project runs migrations with the WebAssembly schema engine: use 'npm run db:migrate' or 'npm run db:migration -- <name>'." >&2
exit 1
