CREATE TABLE "audit_checkpoints" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"record_id" text NOT NULL,
	"record_time" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"kid" text NOT NULL,
	"jws" text NOT NULL
);
