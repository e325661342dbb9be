import { verbs } from '../verbs.js';
import { fileRef } from '../views.js';

const r = verbs('upload');

export default [
  // Named by the legacy body schema Body_create_upload_file_api_upload_file_v1__post: a multipart form with `file`.
  r.submit('Create Upload File', 'POST', '/api/upload/file/v1/', {
    mutation: 'uploadFile',
    result: `file { ${fileRef} }`,
    status: 201,
  }),
];
