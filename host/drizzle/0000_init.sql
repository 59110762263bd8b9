CREATE TABLE "agents" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"pipeline_id" text,
	"key_hash" text NOT NULL,
	"key_prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agents_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "pipelines" (
	"pipeline_id" text PRIMARY KEY NOT NULL,
	"preset" text NOT NULL,
	"overrides" jsonb NOT NULL,
	"allow_flags" jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_pipeline_id_pipelines_pipeline_id_fk" FOREIGN KEY ("pipeline_id") REFERENCES "pipelines"("pipeline_id") ON DELETE restrict ON UPDATE restrict;--> statement-breakpoint
CREATE INDEX "agents_pipeline_id_idx" ON "agents" USING btree ("pipeline_id");