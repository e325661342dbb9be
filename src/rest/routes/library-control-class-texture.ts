import { verbs } from '../verbs.js';
import { libraryTexture } from '../views.js';

const r = verbs('library-control-class-texture');
const base = '/api/library/control/v1/class-texture';
const textures = { field: 'textures', type: 'Texture', select: libraryTexture };
const row = { param: 'class_texture_id' };
const texture = { type: 'Texture', select: libraryTexture };

export default [
  r.list('Library Class Texture List', `${base}/`, textures),
  r.create('Create Library Class Texture', `${base}/`, texture),
  r.info('Info Library Class Texture', `${base}/info/`, textures),
  r.filter('Filter Library Class Texture', `${base}/filter/`, textures),
  r.get('Get Library Class Texture', `${base}/{class_texture_id}/`, {
    ...row,
    field: 'texture',
    select: libraryTexture,
  }),
  r.update('Update Library Class Texture', `${base}/{class_texture_id}/`, { ...row, ...texture }),
  r.remove('Delete Library Class Texture', `${base}/{class_texture_id}/`, { ...row, type: 'Texture' }),
];
