import type { Group } from './route.js';

/** What each legacy group holds: the description of its tag in the OpenAPI document. */
export const groupDescriptions: Record<Group, string> = {
  'action-log': 'The action log: one entry per change (user, organization, method, entity), read only.',
  'user-organization-control':
    "Members of the caller's organizations (user-organization links): list, read, change a role, remove; organization choices.",
  'user-info': "The caller's own user: read and change it, choose its active organization; organization choices.",
  'user-invite':
    'Invites to an organization: create and resend (the answer carries the single-use token), list, read, delete.',
  'user-organization':
    'The user-organization links of user-organization-control, at the legacy user-organization paths.',
  'organization-info': 'An organization with its rate and its counts of members, libraries and boards.',
  'organization-user':
    'Organizations: list, create (the creator becomes their owner), read, change, delete with their name as confirmation; rate choices.',
  'library-control-class-conf-attribute': 'Attributes of library classes: list, create, read, change, delete, reorder.',
  'library-control-class-conf':
    'Library classes (class configurations) with their textures: list, create, read, change, delete.',
  'library-control': 'Libraries of object classes: list, create, read, change, delete.',
  'library-view-class-conf': 'Library classes with their textures, read only.',
  'whiteboard-archive': 'Boards in the archive: list, read, unarchive, delete one or all.',
  'whiteboard-data-stream': 'Data streams of boards: list, create, read, change, delete.',
  'whiteboard-data-stream-connection':
    'Steps of data streams (object connections, in order): list, create, read, change, delete, reorder.',
  'whiteboard-object-attribute':
    'Attribute values of board objects: list, read, change; choices of attribute codes and of values.',
  'whiteboard-object-connection': 'Connections between two objects of a board: list, create, read, change, delete.',
  'whiteboard-object-instance':
    'Where objects are drawn on their board (position, size, z-index): list, create, read, change, delete.',
  'whiteboard-object-relation': 'Parent-child relations between objects of a board, read only.',
  'whiteboard-object':
    'Objects on boards: list, create, read, change, delete, search; import into a board from a file.',
  'whiteboard-highlight':
    'Highlight rules and their groups: list, create, read, change, delete; the objects each rule marks; choices for rules.',
  whiteboard:
    'Boards not in the archive: list, create, read, change, delete, archive; who may open one; import from a file.',
  'object-repository':
    "The organization's repository of reusable objects: list (newest first or filtered), create, read; user choices.",
  'library-control-class-texture': 'Textures of library classes: list, create, read, change, delete.',
  'whiteboard-data-stream-slide': 'Slides of data streams: list, create, read, change, delete, reorder.',
  webhook:
    "Webhook endpoints of an organization (the gateway's own, not a legacy group): add one (the answer shows its signing secret once), list, read, change, enable, disable, delete, rotate its secret; its deliveries and dead letters, and redelivery.",
  upload: 'File upload (a multipart form); the answer is the file reference, whose file is the URL that serves it.',
};
