-- A file's bytes go with its row, in the same transaction, whichever way the row goes (an
-- organization's deletion cascades to its files, plain SQL too). Not a foreign key: the chunks are
-- written before the row that names them and `file.file` is not unique.
-- The body is an escaped string with \073 for the semicolon: @prisma/adapter-pg runs a migration
-- split at every semicolon, dollar quotes or not.
CREATE FUNCTION delete_file_chunks() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  DELETE FROM file_chunk WHERE name = OLD.file\073
  RETURN NULL\073
END
';

CREATE TRIGGER "file_delete_chunks" AFTER DELETE ON "file"
  FOR EACH ROW EXECUTE FUNCTION delete_file_chunks();
