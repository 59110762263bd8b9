CREATE TABLE "audit_records" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"id" text NOT NULL,
	"time" timestamp with time zone NOT NULL,
	"kind" text NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"outcome" text NOT NULL,
	"status" integer NOT NULL,
	"agent_id" text,
	"session_id" text,
	"pipeline_id" text,
	"pipeline_version" integer,
	"request_id" text,
	"token_id" text,
	"classification" text,
	"detail" jsonb NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "audit_records_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE INDEX "audit_records_agent_seq_idx" ON "audit_records" USING btree ("agent_id","seq");--> statement-breakpoint
CREATE INDEX "audit_records_session_seq_idx" ON "audit_records" USING btree ("session_id","seq");--> statement-breakpoint
CREATE INDEX "audit_records_time_idx" ON "audit_records" USING btree ("time");