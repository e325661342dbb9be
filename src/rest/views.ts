// The legacy read view of each entity: GraphQL selections whose aliases are the legacy snake_case
// keys. The views tabled in legacy-v1-interface.md are spelled exactly as there; the others name
// every column of the entity the same way.

const timestamps = 'created_at: createdAt updated_at: updatedAt';

/** A file reference. */
export const fileRef = 'id: rowId file';

export const rate = `id: rowId code name max_users: maxUsers max_whiteboards: maxWhiteboards`;

export const organization = `id: rowId name rate_id: rateId ${timestamps}`;

/** `organization_id` of a user is its active organization. */
export const user = `id: rowId email first_name: firstName last_name: lastName is_active: isActive is_admin: isAdmin organization_id: organizationId ${timestamps}`;

/** The user-organization link, with the nested objects of the legacy table. */
export const membership = `id: rowId user_id: userId organization_id: organizationId role last_activity: lastActivity
  organization { id: rowId name }
  user { id: rowId email first_name: firstName is_active: isActive is_admin: isAdmin organization_id: organizationId }`;

export const invite = `id: rowId email organization_id: organizationId role invited_by_id: invitedById expires_at: expiresAt accepted_at: acceptedAt ${timestamps}`;

export const actionLog = `id: rowId user_id: userId organization_id: organizationId method credential entity_type: entityType entity_id: entityId created_at: createdAt`;

/** The seven fields of the archive answer. */
export const whiteboardArchive = `id: rowId name description author_id: authorId organization_id: organizationId in_the_archive: inTheArchive mini_drawing_id: miniDrawingId`;

/** The full list form. */
export const whiteboard = `${whiteboardArchive} ${timestamps}
  author { id: rowId email first_name: firstName organization_id: organizationId }
  organization { id: rowId name rate_id: rateId }
  mini_drawing: miniDrawing { ${fileRef} }`;

export const dataStream = `id: rowId name description icon color author_id: authorId whiteboard_id: whiteboardId ${timestamps}`;

/** A slide, with the data stream of the legacy table. */
export const slide = `id: rowId data_stream_id: dataStreamId author_id: authorId order name description
  connections_is_used: connectionsIsUsed enable_camera: enableCamera
  camera_x1: cameraX1 camera_y1: cameraY1 camera_x2: cameraX2 camera_y2: cameraY2 enable_description: enableDescription
  data_stream: dataStream { id: rowId name icon color author_id: authorId whiteboard_id: whiteboardId }`;

export const dataStreamConnection = `id: rowId data_stream_id: dataStreamId object_connection_id: objectConnectionId direction order description ${timestamps}`;

export const whiteboardObject = `id: rowId whiteboard_id: whiteboardId class_conf_id: classConfId author_id: authorId name description ${timestamps}`;

export const objectInstance = `id: rowId object_id: objectId x y width height z_index: zIndex ${timestamps}`;

export const objectAttribute = `id: rowId object_id: objectId attribute_id: attributeId
  value_str: valueStr value_number: valueNumber value_bool: valueBool value_date: valueDate ${timestamps}`;

export const objectConnection = `id: rowId whiteboard_id: whiteboardId source_object_id: sourceObjectId target_object_id: targetObjectId
  name color direction shape style ${timestamps}`;

export const objectRelation =
  'id: rowId parent_object_id: parentObjectId child_object_id: childObjectId created_at: createdAt';

export const highlight = `id: rowId whiteboard_id: whiteboardId group_id: groupId name color class_conf_id: classConfId
  attribute_id: attributeId operand value is_active: isActive ${timestamps}`;

export const highlightGroup = `id: rowId whiteboard_id: whiteboardId name is_active: isActive ${timestamps}`;

export const repositoryEntry = `id: rowId organization_id: organizationId object_id: objectId author_id: authorId name description ${timestamps}`;

export const library = `id: rowId organization_id: organizationId author_id: authorId name description published_status: publishedStatus ${timestamps}`;

/** The texture object of the legacy table, with its two file references. */
export const texture = `id: rowId
  light_theme_image_id: lightThemeImageId dark_theme_image_id: darkThemeImageId
  light_theme_image: lightThemeImage { ${fileRef} } dark_theme_image: darkThemeImage { ${fileRef} }
  icon_x: iconX icon_y: iconY icon_width: iconWidth icon_height: iconHeight icon_visible: iconVisible
  light_theme_text_color: lightThemeTextColor dark_theme_text_color: darkThemeTextColor
  name_font_size: nameFontSize name_x: nameX name_y: nameY name_width: nameWidth name_height: nameHeight name_visible: nameVisible
  class_name_font_size: classNameFontSize class_name_visible: classNameVisible
  class_name_x: classNameX class_name_y: classNameY class_name_width: classNameWidth class_name_height: classNameHeight
  width height light_class_name_color: lightClassNameColor dark_class_name_color: darkClassNameColor
  is_text_in_center_without_logo: isTextInCenterWithoutLogo`;

/** A texture as its own group shows it: the legacy texture object and the library it belongs to. */
export const libraryTexture = `${texture} library_id: libraryId name`;

/** The library class configuration read view, with its texture. */
export const classConf = `id: rowId name description library_id: libraryId class_type: classType icon figure_type: figureType
  texture_id: textureId texture { ${texture} }`;

export const classConfAttribute = `id: rowId class_conf_id: classConfId name code type order is_required: isRequired choices ${timestamps}`;

/** A webhook endpoint (the gateway's own API; never its secret). */
export const webhookEndpoint = `id: rowId organization_id: organizationId url description event_types: eventTypes whiteboard_ids: whiteboardIds enabled disabled_reason: disabledReason previous_secret_expires_at: previousSecretExpiresAt ${timestamps}`;

export const webhookDelivery = `delivery_id: deliveryId endpoint_id: endpointId message_id: messageId event_type: eventType whiteboard_id: whiteboardId state attempts next_attempt_at: nextAttemptAt last_attempt_at: lastAttemptAt last_status: lastStatus last_error: lastError delivered_at: deliveredAt created_at: createdAt body`;
