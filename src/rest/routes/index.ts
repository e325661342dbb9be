import type { Route } from '../route.js';
import actionLog from './action-log.js';
import libraryControl from './library-control.js';
import libraryControlClassConf from './library-control-class-conf.js';
import libraryControlClassConfAttribute from './library-control-class-conf-attribute.js';
import libraryControlClassTexture from './library-control-class-texture.js';
import libraryViewClassConf from './library-view-class-conf.js';
import objectRepository from './object-repository.js';
import organizationInfo from './organization-info.js';
import organizationUser from './organization-user.js';
import upload from './upload.js';
import userInfo from './user-info.js';
import userInvite from './user-invite.js';
import userOrganization from './user-organization.js';
import userOrganizationControl from './user-organization-control.js';
import whiteboard from './whiteboard.js';
import whiteboardArchive from './whiteboard-archive.js';
import whiteboardDataStream from './whiteboard-data-stream.js';
import whiteboardDataStreamConnection from './whiteboard-data-stream-connection.js';
import whiteboardDataStreamSlide from './whiteboard-data-stream-slide.js';
import whiteboardHighlight from './whiteboard-highlight.js';
import whiteboardObject from './whiteboard-object.js';
import whiteboardObjectAttribute from './whiteboard-object-attribute.js';
import whiteboardObjectConnection from './whiteboard-object-connection.js';
import whiteboardObjectInstance from './whiteboard-object-instance.js';
import whiteboardObjectRelation from './whiteboard-object-relation.js';
import webhook from './webhook.js';

/** The whole REST v1 table, one file per legacy group, and the gateway's own groups (route.ts, ownGroups). */
export const routes: Route[] = [
  ...actionLog,
  ...userOrganizationControl,
  ...userInfo,
  ...userInvite,
  ...userOrganization,
  ...organizationInfo,
  ...organizationUser,
  ...libraryControlClassConfAttribute,
  ...libraryControlClassConf,
  ...libraryControl,
  ...libraryViewClassConf,
  ...whiteboardArchive,
  ...whiteboardDataStream,
  ...whiteboardDataStreamConnection,
  ...whiteboardObjectAttribute,
  ...whiteboardObjectConnection,
  ...whiteboardObjectInstance,
  ...whiteboardObjectRelation,
  ...whiteboardObject,
  ...whiteboardHighlight,
  ...whiteboard,
  ...objectRepository,
  ...libraryControlClassTexture,
  ...whiteboardDataStreamSlide,
  ...upload,
  ...webhook,
];
