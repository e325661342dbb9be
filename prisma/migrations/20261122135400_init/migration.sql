-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "rate_code" AS ENUM ('FREE', 'STANDARD', 'PROFESSIONAL', 'ENTERPRISE');

-- CreateEnum
CREATE TYPE "role" AS ENUM ('OWNER', 'ADMIN', 'MEMBER', 'VIEWER');

-- CreateEnum
CREATE TYPE "api_key_permission" AS ENUM ('READ_ONLY', 'READ_WRITE', 'ADMIN');

-- CreateEnum
CREATE TYPE "action_method" AS ENUM ('CREATE', 'UPDATE', 'DELETE');

-- CreateEnum
CREATE TYPE "data_stream_connection_direction" AS ENUM ('FORWARD', 'BACKWARD', 'BIDIRECTIONAL');

-- CreateEnum
CREATE TYPE "object_connection_direction" AS ENUM ('NONE', 'FORWARD', 'BACKWARD', 'BIDIRECTIONAL');

-- CreateEnum
CREATE TYPE "object_connection_shape" AS ENUM ('STRAIGHT', 'CURVED', 'ORTHOGONAL');

-- CreateEnum
CREATE TYPE "object_connection_style" AS ENUM ('SOLID', 'DASHED', 'DOTTED');

-- CreateEnum
CREATE TYPE "highlight_operand" AS ENUM ('EQUAL', 'NOT_EQUAL', 'GREATER', 'GREATER_OR_EQUAL', 'LESS', 'LESS_OR_EQUAL', 'CONTAINS', 'IS_EMPTY', 'IS_NOT_EMPTY');

-- CreateEnum
CREATE TYPE "library_published_status" AS ENUM ('DRAFT', 'PUBLISHED', 'ARCHIVED');

-- CreateEnum
CREATE TYPE "library_class_type" AS ENUM ('OBJECT', 'PROCESS', 'DATA', 'ACTOR', 'SYSTEM', 'CONTAINER');

-- CreateEnum
CREATE TYPE "class_conf_attribute_type" AS ENUM ('STRING', 'TEXT', 'INTEGER', 'FLOAT', 'BOOLEAN', 'DATE', 'CHOICE');

-- CreateTable
CREATE TABLE "rate" (
    "id" SERIAL NOT NULL,
    "code" "rate_code" NOT NULL,
    "name" TEXT NOT NULL,
    "max_users" INTEGER,
    "max_whiteboards" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "rate_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organization" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "rate_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "organization_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "first_name" TEXT NOT NULL,
    "last_name" TEXT NOT NULL DEFAULT '',
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "is_admin" BOOLEAN NOT NULL DEFAULT false,
    "organization_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "user_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_organization" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "role" "role" NOT NULL DEFAULT 'MEMBER',
    "last_activity" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "user_organization_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_invite" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "role" "role" NOT NULL DEFAULT 'MEMBER',
    "invited_by_id" INTEGER NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "accepted_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "user_invite_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_key" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "permission" "api_key_permission" NOT NULL DEFAULT 'READ_ONLY',
    "expires_at" TIMESTAMP(3),
    "revoked_at" TIMESTAMP(3),
    "last_used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "api_key_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_action_log" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "organization_id" INTEGER,
    "method" "action_method" NOT NULL,
    "entity_type" TEXT NOT NULL,
    "entity_id" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_action_log_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "file" (
    "id" SERIAL NOT NULL,
    "file" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "uploaded_by_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "file_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "author_id" INTEGER NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "in_the_archive" BOOLEAN NOT NULL DEFAULT false,
    "mini_drawing_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "whiteboard_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard_data_stream" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "icon" TEXT NOT NULL DEFAULT '',
    "color" TEXT NOT NULL DEFAULT '',
    "author_id" INTEGER NOT NULL,
    "whiteboard_id" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "whiteboard_data_stream_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard_data_stream_connection" (
    "id" SERIAL NOT NULL,
    "data_stream_id" INTEGER NOT NULL,
    "object_connection_id" INTEGER NOT NULL,
    "direction" "data_stream_connection_direction" NOT NULL DEFAULT 'FORWARD',
    "order" INTEGER NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "whiteboard_data_stream_connection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard_data_stream_slide" (
    "id" SERIAL NOT NULL,
    "data_stream_id" INTEGER NOT NULL,
    "author_id" INTEGER NOT NULL,
    "order" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "connections_is_used" BOOLEAN NOT NULL DEFAULT false,
    "enable_camera" BOOLEAN NOT NULL DEFAULT false,
    "camera_x1" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "camera_y1" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "camera_x2" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "camera_y2" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "enable_description" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "whiteboard_data_stream_slide_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard_object" (
    "id" SERIAL NOT NULL,
    "whiteboard_id" INTEGER NOT NULL,
    "class_conf_id" INTEGER,
    "author_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "whiteboard_object_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard_object_instance" (
    "id" SERIAL NOT NULL,
    "object_id" INTEGER NOT NULL,
    "x" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "y" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "width" DOUBLE PRECISION NOT NULL DEFAULT 100,
    "height" DOUBLE PRECISION NOT NULL DEFAULT 100,
    "z_index" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "whiteboard_object_instance_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard_object_attribute_data" (
    "id" SERIAL NOT NULL,
    "object_id" INTEGER NOT NULL,
    "attribute_id" INTEGER NOT NULL,
    "value_str" TEXT,
    "value_number" DOUBLE PRECISION,
    "value_bool" BOOLEAN,
    "value_date" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "whiteboard_object_attribute_data_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard_object_connection" (
    "id" SERIAL NOT NULL,
    "whiteboard_id" INTEGER NOT NULL,
    "source_object_id" INTEGER NOT NULL,
    "target_object_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "color" TEXT NOT NULL DEFAULT '',
    "direction" "object_connection_direction" NOT NULL DEFAULT 'FORWARD',
    "shape" "object_connection_shape" NOT NULL DEFAULT 'STRAIGHT',
    "style" "object_connection_style" NOT NULL DEFAULT 'SOLID',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "whiteboard_object_connection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard_object_relation" (
    "id" SERIAL NOT NULL,
    "parent_object_id" INTEGER NOT NULL,
    "child_object_id" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "whiteboard_object_relation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard_highlight_group" (
    "id" SERIAL NOT NULL,
    "whiteboard_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "whiteboard_highlight_group_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "whiteboard_highlight" (
    "id" SERIAL NOT NULL,
    "whiteboard_id" INTEGER NOT NULL,
    "group_id" INTEGER,
    "name" TEXT NOT NULL,
    "color" TEXT NOT NULL DEFAULT '',
    "class_conf_id" INTEGER NOT NULL,
    "attribute_id" INTEGER NOT NULL,
    "operand" "highlight_operand" NOT NULL DEFAULT 'EQUAL',
    "value" TEXT NOT NULL DEFAULT '',
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "whiteboard_highlight_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "object_repository" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "object_id" INTEGER NOT NULL,
    "author_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "object_repository_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "library" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "author_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "published_status" "library_published_status" NOT NULL DEFAULT 'DRAFT',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "library_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "library_class_conf" (
    "id" SERIAL NOT NULL,
    "library_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "class_type" "library_class_type" NOT NULL DEFAULT 'OBJECT',
    "icon" TEXT NOT NULL DEFAULT '',
    "figure_type" TEXT NOT NULL DEFAULT '',
    "texture_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "library_class_conf_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "library_class_conf_attribute" (
    "id" SERIAL NOT NULL,
    "class_conf_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "type" "class_conf_attribute_type" NOT NULL DEFAULT 'STRING',
    "order" INTEGER NOT NULL,
    "is_required" BOOLEAN NOT NULL DEFAULT false,
    "choices" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "library_class_conf_attribute_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "library_class_texture" (
    "id" SERIAL NOT NULL,
    "library_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "light_theme_image_id" INTEGER,
    "dark_theme_image_id" INTEGER,
    "icon_x" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "icon_y" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "icon_width" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "icon_height" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "icon_visible" BOOLEAN NOT NULL DEFAULT true,
    "light_theme_text_color" TEXT NOT NULL DEFAULT '#000000',
    "dark_theme_text_color" TEXT NOT NULL DEFAULT '#FFFFFF',
    "name_font_size" INTEGER NOT NULL DEFAULT 14,
    "name_x" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "name_y" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "name_width" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "name_height" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "name_visible" BOOLEAN NOT NULL DEFAULT true,
    "class_name_font_size" INTEGER NOT NULL DEFAULT 12,
    "class_name_visible" BOOLEAN NOT NULL DEFAULT true,
    "class_name_x" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "class_name_y" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "class_name_width" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "class_name_height" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "width" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "height" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "light_class_name_color" TEXT NOT NULL DEFAULT '#000000',
    "dark_class_name_color" TEXT NOT NULL DEFAULT '#FFFFFF',
    "is_text_in_center_without_logo" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "library_class_texture_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "rate_code_key" ON "rate"("code");

-- CreateIndex
CREATE INDEX "organization_rate_id_idx" ON "organization"("rate_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_email_key" ON "user"("email");

-- CreateIndex
CREATE INDEX "user_organization_id_idx" ON "user"("organization_id");

-- CreateIndex
CREATE INDEX "user_organization_organization_id_idx" ON "user_organization"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_organization_user_id_organization_id_key" ON "user_organization"("user_id", "organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_invite_token_hash_key" ON "user_invite"("token_hash");

-- CreateIndex
CREATE INDEX "user_invite_organization_id_idx" ON "user_invite"("organization_id");

-- CreateIndex
CREATE INDEX "user_invite_invited_by_id_idx" ON "user_invite"("invited_by_id");

-- CreateIndex
CREATE INDEX "user_invite_email_idx" ON "user_invite"("email");

-- CreateIndex
CREATE UNIQUE INDEX "api_key_secret_hash_key" ON "api_key"("secret_hash");

-- CreateIndex
CREATE INDEX "api_key_user_id_idx" ON "api_key"("user_id");

-- CreateIndex
CREATE INDEX "user_action_log_user_id_idx" ON "user_action_log"("user_id");

-- CreateIndex
CREATE INDEX "user_action_log_organization_id_created_at_idx" ON "user_action_log"("organization_id", "created_at");

-- CreateIndex
CREATE INDEX "file_organization_id_idx" ON "file"("organization_id");

-- CreateIndex
CREATE INDEX "file_uploaded_by_id_idx" ON "file"("uploaded_by_id");

-- CreateIndex
CREATE INDEX "whiteboard_organization_id_in_the_archive_idx" ON "whiteboard"("organization_id", "in_the_archive");

-- CreateIndex
CREATE INDEX "whiteboard_author_id_idx" ON "whiteboard"("author_id");

-- CreateIndex
CREATE INDEX "whiteboard_mini_drawing_id_idx" ON "whiteboard"("mini_drawing_id");

-- CreateIndex
CREATE INDEX "whiteboard_data_stream_whiteboard_id_idx" ON "whiteboard_data_stream"("whiteboard_id");

-- CreateIndex
CREATE INDEX "whiteboard_data_stream_author_id_idx" ON "whiteboard_data_stream"("author_id");

-- CreateIndex
CREATE INDEX "whiteboard_data_stream_connection_data_stream_id_order_idx" ON "whiteboard_data_stream_connection"("data_stream_id", "order");

-- CreateIndex
CREATE INDEX "whiteboard_data_stream_connection_object_connection_id_idx" ON "whiteboard_data_stream_connection"("object_connection_id");

-- CreateIndex
CREATE INDEX "whiteboard_data_stream_slide_data_stream_id_order_idx" ON "whiteboard_data_stream_slide"("data_stream_id", "order");

-- CreateIndex
CREATE INDEX "whiteboard_data_stream_slide_author_id_idx" ON "whiteboard_data_stream_slide"("author_id");

-- CreateIndex
CREATE INDEX "whiteboard_object_whiteboard_id_idx" ON "whiteboard_object"("whiteboard_id");

-- CreateIndex
CREATE INDEX "whiteboard_object_class_conf_id_idx" ON "whiteboard_object"("class_conf_id");

-- CreateIndex
CREATE INDEX "whiteboard_object_author_id_idx" ON "whiteboard_object"("author_id");

-- CreateIndex
CREATE INDEX "whiteboard_object_instance_object_id_idx" ON "whiteboard_object_instance"("object_id");

-- CreateIndex
CREATE INDEX "whiteboard_object_attribute_data_attribute_id_idx" ON "whiteboard_object_attribute_data"("attribute_id");

-- CreateIndex
CREATE UNIQUE INDEX "whiteboard_object_attribute_data_object_id_attribute_id_key" ON "whiteboard_object_attribute_data"("object_id", "attribute_id");

-- CreateIndex
CREATE INDEX "whiteboard_object_connection_whiteboard_id_idx" ON "whiteboard_object_connection"("whiteboard_id");

-- CreateIndex
CREATE INDEX "whiteboard_object_connection_source_object_id_idx" ON "whiteboard_object_connection"("source_object_id");

-- CreateIndex
CREATE INDEX "whiteboard_object_connection_target_object_id_idx" ON "whiteboard_object_connection"("target_object_id");

-- CreateIndex
CREATE INDEX "whiteboard_object_relation_child_object_id_idx" ON "whiteboard_object_relation"("child_object_id");

-- CreateIndex
CREATE UNIQUE INDEX "whiteboard_object_relation_parent_object_id_child_object_id_key" ON "whiteboard_object_relation"("parent_object_id", "child_object_id");

-- CreateIndex
CREATE INDEX "whiteboard_highlight_group_whiteboard_id_idx" ON "whiteboard_highlight_group"("whiteboard_id");

-- CreateIndex
CREATE INDEX "whiteboard_highlight_whiteboard_id_idx" ON "whiteboard_highlight"("whiteboard_id");

-- CreateIndex
CREATE INDEX "whiteboard_highlight_group_id_idx" ON "whiteboard_highlight"("group_id");

-- CreateIndex
CREATE INDEX "whiteboard_highlight_class_conf_id_idx" ON "whiteboard_highlight"("class_conf_id");

-- CreateIndex
CREATE INDEX "whiteboard_highlight_attribute_id_idx" ON "whiteboard_highlight"("attribute_id");

-- CreateIndex
CREATE INDEX "object_repository_organization_id_created_at_idx" ON "object_repository"("organization_id", "created_at");

-- CreateIndex
CREATE INDEX "object_repository_object_id_idx" ON "object_repository"("object_id");

-- CreateIndex
CREATE INDEX "object_repository_author_id_idx" ON "object_repository"("author_id");

-- CreateIndex
CREATE INDEX "library_organization_id_idx" ON "library"("organization_id");

-- CreateIndex
CREATE INDEX "library_author_id_idx" ON "library"("author_id");

-- CreateIndex
CREATE INDEX "library_class_conf_library_id_idx" ON "library_class_conf"("library_id");

-- CreateIndex
CREATE INDEX "library_class_conf_texture_id_idx" ON "library_class_conf"("texture_id");

-- CreateIndex
CREATE INDEX "library_class_conf_attribute_class_conf_id_order_idx" ON "library_class_conf_attribute"("class_conf_id", "order");

-- CreateIndex
CREATE UNIQUE INDEX "library_class_conf_attribute_class_conf_id_code_key" ON "library_class_conf_attribute"("class_conf_id", "code");

-- CreateIndex
CREATE INDEX "library_class_texture_library_id_idx" ON "library_class_texture"("library_id");

-- CreateIndex
CREATE INDEX "library_class_texture_light_theme_image_id_idx" ON "library_class_texture"("light_theme_image_id");

-- CreateIndex
CREATE INDEX "library_class_texture_dark_theme_image_id_idx" ON "library_class_texture"("dark_theme_image_id");

-- AddForeignKey
ALTER TABLE "organization" ADD CONSTRAINT "organization_rate_id_fkey" FOREIGN KEY ("rate_id") REFERENCES "rate"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user" ADD CONSTRAINT "user_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organization"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_organization" ADD CONSTRAINT "user_organization_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_organization" ADD CONSTRAINT "user_organization_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_invite" ADD CONSTRAINT "user_invite_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_invite" ADD CONSTRAINT "user_invite_invited_by_id_fkey" FOREIGN KEY ("invited_by_id") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_key" ADD CONSTRAINT "api_key_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_action_log" ADD CONSTRAINT "user_action_log_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_action_log" ADD CONSTRAINT "user_action_log_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "file" ADD CONSTRAINT "file_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "file" ADD CONSTRAINT "file_uploaded_by_id_fkey" FOREIGN KEY ("uploaded_by_id") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard" ADD CONSTRAINT "whiteboard_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard" ADD CONSTRAINT "whiteboard_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard" ADD CONSTRAINT "whiteboard_mini_drawing_id_fkey" FOREIGN KEY ("mini_drawing_id") REFERENCES "file"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_data_stream" ADD CONSTRAINT "whiteboard_data_stream_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_data_stream" ADD CONSTRAINT "whiteboard_data_stream_whiteboard_id_fkey" FOREIGN KEY ("whiteboard_id") REFERENCES "whiteboard"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_data_stream_connection" ADD CONSTRAINT "whiteboard_data_stream_connection_data_stream_id_fkey" FOREIGN KEY ("data_stream_id") REFERENCES "whiteboard_data_stream"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_data_stream_connection" ADD CONSTRAINT "whiteboard_data_stream_connection_object_connection_id_fkey" FOREIGN KEY ("object_connection_id") REFERENCES "whiteboard_object_connection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_data_stream_slide" ADD CONSTRAINT "whiteboard_data_stream_slide_data_stream_id_fkey" FOREIGN KEY ("data_stream_id") REFERENCES "whiteboard_data_stream"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_data_stream_slide" ADD CONSTRAINT "whiteboard_data_stream_slide_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object" ADD CONSTRAINT "whiteboard_object_whiteboard_id_fkey" FOREIGN KEY ("whiteboard_id") REFERENCES "whiteboard"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object" ADD CONSTRAINT "whiteboard_object_class_conf_id_fkey" FOREIGN KEY ("class_conf_id") REFERENCES "library_class_conf"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object" ADD CONSTRAINT "whiteboard_object_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object_instance" ADD CONSTRAINT "whiteboard_object_instance_object_id_fkey" FOREIGN KEY ("object_id") REFERENCES "whiteboard_object"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object_attribute_data" ADD CONSTRAINT "whiteboard_object_attribute_data_object_id_fkey" FOREIGN KEY ("object_id") REFERENCES "whiteboard_object"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object_attribute_data" ADD CONSTRAINT "whiteboard_object_attribute_data_attribute_id_fkey" FOREIGN KEY ("attribute_id") REFERENCES "library_class_conf_attribute"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object_connection" ADD CONSTRAINT "whiteboard_object_connection_whiteboard_id_fkey" FOREIGN KEY ("whiteboard_id") REFERENCES "whiteboard"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object_connection" ADD CONSTRAINT "whiteboard_object_connection_source_object_id_fkey" FOREIGN KEY ("source_object_id") REFERENCES "whiteboard_object"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object_connection" ADD CONSTRAINT "whiteboard_object_connection_target_object_id_fkey" FOREIGN KEY ("target_object_id") REFERENCES "whiteboard_object"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object_relation" ADD CONSTRAINT "whiteboard_object_relation_parent_object_id_fkey" FOREIGN KEY ("parent_object_id") REFERENCES "whiteboard_object"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_object_relation" ADD CONSTRAINT "whiteboard_object_relation_child_object_id_fkey" FOREIGN KEY ("child_object_id") REFERENCES "whiteboard_object"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_highlight_group" ADD CONSTRAINT "whiteboard_highlight_group_whiteboard_id_fkey" FOREIGN KEY ("whiteboard_id") REFERENCES "whiteboard"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_highlight" ADD CONSTRAINT "whiteboard_highlight_whiteboard_id_fkey" FOREIGN KEY ("whiteboard_id") REFERENCES "whiteboard"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_highlight" ADD CONSTRAINT "whiteboard_highlight_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "whiteboard_highlight_group"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_highlight" ADD CONSTRAINT "whiteboard_highlight_class_conf_id_fkey" FOREIGN KEY ("class_conf_id") REFERENCES "library_class_conf"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "whiteboard_highlight" ADD CONSTRAINT "whiteboard_highlight_attribute_id_fkey" FOREIGN KEY ("attribute_id") REFERENCES "library_class_conf_attribute"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "object_repository" ADD CONSTRAINT "object_repository_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "object_repository" ADD CONSTRAINT "object_repository_object_id_fkey" FOREIGN KEY ("object_id") REFERENCES "whiteboard_object"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "object_repository" ADD CONSTRAINT "object_repository_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "library" ADD CONSTRAINT "library_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "library" ADD CONSTRAINT "library_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "library_class_conf" ADD CONSTRAINT "library_class_conf_library_id_fkey" FOREIGN KEY ("library_id") REFERENCES "library"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "library_class_conf" ADD CONSTRAINT "library_class_conf_texture_id_fkey" FOREIGN KEY ("texture_id") REFERENCES "library_class_texture"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "library_class_conf_attribute" ADD CONSTRAINT "library_class_conf_attribute_class_conf_id_fkey" FOREIGN KEY ("class_conf_id") REFERENCES "library_class_conf"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "library_class_texture" ADD CONSTRAINT "library_class_texture_library_id_fkey" FOREIGN KEY ("library_id") REFERENCES "library"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "library_class_texture" ADD CONSTRAINT "library_class_texture_light_theme_image_id_fkey" FOREIGN KEY ("light_theme_image_id") REFERENCES "file"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "library_class_texture" ADD CONSTRAINT "library_class_texture_dark_theme_image_id_fkey" FOREIGN KEY ("dark_theme_image_id") REFERENCES "file"("id") ON DELETE SET NULL ON UPDATE CASCADE;
