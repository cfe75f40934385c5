-- A PostgreSQL (pg_dump --inserts) database made by the first release's code (commit fd058ec): `memlens chat` / `end-session` /
-- `remember` turns as alice, 王芳 and bob@example.com, then a hit label, two live settings, a person's supersede and
-- a profile edit (see docs/architecture.md, "Adding a migration"). LangGraph checkpoint tables left out.
-- tests/test_migrations.py upgrades it to the current schema. Never edit it.
SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

CREATE TABLE public.contextsection (
    id integer NOT NULL,
    snapshot_id integer NOT NULL,
    name character varying(32) NOT NULL,
    "position" integer NOT NULL,
    budget integer NOT NULL,
    used integer NOT NULL,
    kept integer NOT NULL,
    dropped integer NOT NULL,
    dropped_items jsonb NOT NULL
);

CREATE SEQUENCE public.contextsection_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.contextsection_id_seq OWNED BY public.contextsection.id;

CREATE TABLE public.contextsnapshot (
    id integer NOT NULL,
    turn_id integer,
    session_id character varying(32),
    user_key character varying(32) NOT NULL,
    total_budget integer NOT NULL,
    total_used integer NOT NULL,
    prompt text NOT NULL,
    created_at timestamp with time zone NOT NULL
);

CREATE SEQUENCE public.contextsnapshot_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.contextsnapshot_id_seq OWNED BY public.contextsnapshot.id;

CREATE TABLE public.hitlabel (
    id integer NOT NULL,
    user_key character varying(32) NOT NULL,
    retrieval_id integer NOT NULL,
    memory_id character varying(32) NOT NULL,
    relevant boolean NOT NULL,
    labeled_by character varying NOT NULL,
    created_at timestamp with time zone NOT NULL
);

CREATE SEQUENCE public.hitlabel_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.hitlabel_id_seq OWNED BY public.hitlabel.id;

CREATE TABLE public.memory (
    id character varying(32) NOT NULL,
    user_key character varying(32) NOT NULL,
    agent_id character varying(64) NOT NULL,
    type character varying(16) NOT NULL,
    subject character varying,
    predicate character varying,
    object text,
    content text NOT NULL,
    source_type character varying(16) NOT NULL,
    source_message_ids jsonb NOT NULL,
    confidence double precision NOT NULL,
    importance double precision NOT NULL,
    status character varying(16) NOT NULL,
    superseded_by character varying(32),
    event_time timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    last_accessed_at timestamp with time zone,
    access_count integer NOT NULL,
    reinforce_count integer NOT NULL,
    expires_at timestamp with time zone,
    indexed boolean NOT NULL,
    version integer NOT NULL,
    meta jsonb NOT NULL
);

CREATE TABLE public.memoryevent (
    id integer NOT NULL,
    user_key character varying(32) NOT NULL,
    agent_id character varying(64) NOT NULL,
    memory_id character varying(32),
    op character varying(16) NOT NULL,
    reason character varying NOT NULL,
    content text NOT NULL,
    message_id integer,
    turn_id integer,
    detail jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL
);

CREATE SEQUENCE public.memoryevent_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.memoryevent_id_seq OWNED BY public.memoryevent.id;

CREATE TABLE public.message (
    id integer NOT NULL,
    session_id character varying(32) NOT NULL,
    user_key character varying(32) NOT NULL,
    role character varying(16) NOT NULL,
    content text NOT NULL,
    tokens integer NOT NULL,
    idempotency_key character varying(128),
    write_claimed_at timestamp with time zone,
    meta jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL
);

CREATE SEQUENCE public.message_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.message_id_seq OWNED BY public.message.id;

CREATE TABLE public.profilechange (
    id integer NOT NULL,
    user_key character varying(32) NOT NULL,
    field character varying(64) NOT NULL,
    old_value jsonb,
    new_value jsonb,
    source character varying NOT NULL,
    source_message_id integer,
    reason character varying NOT NULL,
    at timestamp with time zone NOT NULL
);

CREATE SEQUENCE public.profilechange_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.profilechange_id_seq OWNED BY public.profilechange.id;

CREATE TABLE public.profilefield (
    id integer NOT NULL,
    user_key character varying(32) NOT NULL,
    field character varying(64) NOT NULL,
    value jsonb NOT NULL,
    confidence double precision NOT NULL,
    source character varying NOT NULL,
    source_message_id integer,
    updated_at timestamp with time zone NOT NULL,
    version integer NOT NULL
);

CREATE SEQUENCE public.profilefield_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.profilefield_id_seq OWNED BY public.profilefield.id;

CREATE TABLE public.retrieval (
    id integer NOT NULL,
    user_key character varying(32) NOT NULL,
    agent_id character varying(64) NOT NULL,
    session_id character varying(32),
    turn_id integer,
    query text NOT NULL,
    retrieval_query text NOT NULL,
    mode character varying NOT NULL,
    k integer NOT NULL,
    threshold double precision NOT NULL,
    params jsonb NOT NULL,
    latency_ms double precision NOT NULL,
    created_at timestamp with time zone NOT NULL
);

CREATE SEQUENCE public.retrieval_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.retrieval_id_seq OWNED BY public.retrieval.id;

CREATE TABLE public.retrievalhit (
    id integer NOT NULL,
    retrieval_id integer NOT NULL,
    memory_id character varying(32) NOT NULL,
    rank integer NOT NULL,
    similarity double precision,
    fts_score double precision,
    fused_score double precision NOT NULL,
    passed boolean NOT NULL,
    selected boolean NOT NULL,
    injected boolean NOT NULL,
    drop_reason character varying
);

CREATE SEQUENCE public.retrievalhit_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.retrievalhit_id_seq OWNED BY public.retrievalhit.id;

CREATE TABLE public.schemamigration (
    version integer NOT NULL,
    name character varying NOT NULL,
    applied_at timestamp with time zone NOT NULL
);

CREATE SEQUENCE public.schemamigration_version_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.schemamigration_version_seq OWNED BY public.schemamigration.version;

CREATE TABLE public.session (
    id character varying(32) NOT NULL,
    user_key character varying(32) NOT NULL,
    agent_id character varying(64) NOT NULL,
    external_id text NOT NULL,
    external_hash character varying(64) NOT NULL,
    title character varying,
    status character varying NOT NULL,
    started_at timestamp with time zone NOT NULL,
    last_activity_at timestamp with time zone NOT NULL,
    ended_at timestamp with time zone
);

CREATE TABLE public.sessionbridge (
    id integer NOT NULL,
    user_key character varying(32) NOT NULL,
    agent_id character varying(64) NOT NULL,
    from_session_id character varying(32) NOT NULL,
    to_session_id character varying(32),
    text text NOT NULL,
    tokens integer NOT NULL,
    created_at timestamp with time zone NOT NULL,
    injected_at timestamp with time zone
);

CREATE SEQUENCE public.sessionbridge_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.sessionbridge_id_seq OWNED BY public.sessionbridge.id;

CREATE TABLE public.setting (
    key character varying(64) NOT NULL,
    value jsonb,
    updated_at timestamp with time zone NOT NULL
);

CREATE TABLE public.summaryanchor (
    id integer NOT NULL,
    session_id character varying(32) NOT NULL,
    user_key character varying(32) NOT NULL,
    from_message_id integer NOT NULL,
    to_message_id integer NOT NULL,
    text text NOT NULL,
    tokens integer NOT NULL,
    created_at timestamp with time zone NOT NULL
);

CREATE SEQUENCE public.summaryanchor_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.summaryanchor_id_seq OWNED BY public.summaryanchor.id;

CREATE TABLE public.turn (
    id integer NOT NULL,
    session_id character varying(32) NOT NULL,
    user_key character varying(32) NOT NULL,
    user_message_id integer,
    reply_message_id integer,
    model character varying NOT NULL,
    created_at timestamp with time zone NOT NULL
);

CREATE SEQUENCE public.turn_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.turn_id_seq OWNED BY public.turn.id;

CREATE TABLE public."user" (
    key character varying(32) NOT NULL,
    external_id text NOT NULL,
    external_hash character varying(64) NOT NULL,
    display_name character varying,
    created_at timestamp with time zone NOT NULL
);

ALTER TABLE ONLY public.contextsection ALTER COLUMN id SET DEFAULT nextval('public.contextsection_id_seq'::regclass);

ALTER TABLE ONLY public.contextsnapshot ALTER COLUMN id SET DEFAULT nextval('public.contextsnapshot_id_seq'::regclass);

ALTER TABLE ONLY public.hitlabel ALTER COLUMN id SET DEFAULT nextval('public.hitlabel_id_seq'::regclass);

ALTER TABLE ONLY public.memoryevent ALTER COLUMN id SET DEFAULT nextval('public.memoryevent_id_seq'::regclass);

ALTER TABLE ONLY public.message ALTER COLUMN id SET DEFAULT nextval('public.message_id_seq'::regclass);

ALTER TABLE ONLY public.profilechange ALTER COLUMN id SET DEFAULT nextval('public.profilechange_id_seq'::regclass);

ALTER TABLE ONLY public.profilefield ALTER COLUMN id SET DEFAULT nextval('public.profilefield_id_seq'::regclass);

ALTER TABLE ONLY public.retrieval ALTER COLUMN id SET DEFAULT nextval('public.retrieval_id_seq'::regclass);

ALTER TABLE ONLY public.retrievalhit ALTER COLUMN id SET DEFAULT nextval('public.retrievalhit_id_seq'::regclass);

ALTER TABLE ONLY public.schemamigration ALTER COLUMN version SET DEFAULT nextval('public.schemamigration_version_seq'::regclass);

ALTER TABLE ONLY public.sessionbridge ALTER COLUMN id SET DEFAULT nextval('public.sessionbridge_id_seq'::regclass);

ALTER TABLE ONLY public.summaryanchor ALTER COLUMN id SET DEFAULT nextval('public.summaryanchor_id_seq'::regclass);

ALTER TABLE ONLY public.turn ALTER COLUMN id SET DEFAULT nextval('public.turn_id_seq'::regclass);

INSERT INTO public.contextsection VALUES (1, 1, 'system', 0, 400, 51, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (2, 1, 'profile', 1, 300, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (3, 1, 'bridge', 2, 200, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (4, 1, 'summary', 3, 600, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (5, 1, 'memories', 4, 1500, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (6, 1, 'history', 5, 7107, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (7, 1, 'input', 6, 7117, 10, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (8, 2, 'system', 0, 400, 51, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (9, 2, 'profile', 1, 300, 15, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (10, 2, 'bridge', 2, 200, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (11, 2, 'summary', 3, 600, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (12, 2, 'memories', 4, 1500, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (13, 2, 'history', 5, 7088, 60, 2, 0, '[]');
INSERT INTO public.contextsection VALUES (14, 2, 'input', 6, 7117, 14, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (15, 3, 'system', 0, 400, 51, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (16, 3, 'profile', 1, 300, 29, 3, 0, '[]');
INSERT INTO public.contextsection VALUES (17, 3, 'bridge', 2, 200, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (18, 3, 'summary', 3, 600, 14, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (19, 3, 'memories', 4, 1500, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (20, 3, 'history', 5, 7063, 69, 2, 0, '[]');
INSERT INTO public.contextsection VALUES (21, 3, 'input', 6, 7117, 11, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (22, 4, 'system', 0, 400, 51, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (23, 4, 'profile', 1, 300, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (24, 4, 'bridge', 2, 200, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (25, 4, 'summary', 3, 600, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (26, 4, 'memories', 4, 1500, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (27, 4, 'history', 5, 7105, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (28, 4, 'input', 6, 7117, 12, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (29, 5, 'system', 0, 400, 51, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (30, 5, 'profile', 1, 300, 29, 3, 0, '[]');
INSERT INTO public.contextsection VALUES (31, 5, 'bridge', 2, 200, 46, 1, 0, '[]');
INSERT INTO public.contextsection VALUES (32, 5, 'summary', 3, 600, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (33, 5, 'memories', 4, 1500, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (34, 5, 'history', 5, 7033, 0, 0, 0, '[]');
INSERT INTO public.contextsection VALUES (35, 5, 'input', 6, 7117, 9, 1, 0, '[]');

INSERT INTO public.contextsnapshot VALUES (1, 1, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 7168, 61, '[system] You are a helpful assistant with a long-term memory. The sections below are what you remember about this user: use them when they help, never invent memories, and say so when you do not know. Reply in the user''s language.

[human] I moved to Shanghai last month', '2026-12-01 04:10:07.58715+00');
INSERT INTO public.contextsnapshot VALUES (2, 2, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 7168, 138, '[system] You are a helpful assistant with a long-term memory. The sections below are what you remember about this user: use them when they help, never invent memories, and say so when you do not know. Reply in the user''s language.

## Profile (stated by the user)
- city: Shanghai

[human] I moved to Shanghai last month

[ai] (Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

I do not remember anything about you yet.

Noted: "I moved to Shanghai last month".

[human] My name is Alice and I don''t eat spicy food', '2026-12-01 04:10:13.470784+00');
INSERT INTO public.contextsnapshot VALUES (3, 3, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 7168, 172, '[system] You are a helpful assistant with a long-term memory. The sections below are what you remember about this user: use them when they help, never invent memories, and say so when you do not know. Reply in the user''s language.

## Profile (stated by the user)
- city: Shanghai
- display_name: Alice
- dietary: doesn''t eat spicy food

## Conversation so far
Points: I moved to Shanghai last month

[human] My name is Alice and I don''t eat spicy food

[ai] (Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

What I know about you: city: Shanghai

Noted: "My name is Alice and I don''t eat spicy food".

[human] I actually moved to Hangzhou now', '2026-12-01 04:10:20.208079+00');
INSERT INTO public.contextsnapshot VALUES (4, 4, 'e691797a93154ca5b4859d04c242668f', '4741d1bc940a40748f8da3c154f713b1', 7168, 63, '[system] You are a helpful assistant with a long-term memory. The sections below are what you remember about this user: use them when they help, never invent memories, and say so when you do not know. Reply in the user''s language.

[human] 我住在北京，我喜欢喝茶', '2026-12-01 04:10:28.078677+00');
INSERT INTO public.contextsnapshot VALUES (5, 5, '59e323a892c7454088b87471a5ca9663', 'a7e895f7880442daba9b3bcc73b63d59', 7168, 133, '[system] You are a helpful assistant with a long-term memory. The sections below are what you remember about this user: use them when they help, never invent memories, and say so when you do not know. Reply in the user''s language.

## Profile (stated by the user)
- city: Shanghai
- display_name: Alice
- dietary: doesn''t eat spicy food

## Last session
Last time you told me: I moved to Shanghai last month. Key points: My name is Alice and I don''t eat spicy food. Your last message was: "I actually moved to Hangzhou now"

[human] What do you remember?', '2026-12-01 04:10:48.778101+00');

INSERT INTO public.hitlabel VALUES (1, 'a7e895f7880442daba9b3bcc73b63d59', 2, '13325341b3c34a62907c46570514c80c', true, 'team', '2026-12-01 04:11:11.976761+00');

INSERT INTO public.memory VALUES ('2ca6339209aa4ba394c8900fdfaf779d', 'a7e895f7880442daba9b3bcc73b63d59', 'default', 'fact', 'user', 'name', 'Alice', 'User''s name is Alice.', 'user-stated', '[3]', 0.9, 0.695, 'active', NULL, NULL, '2026-12-01 04:10:13.219116+00', '2026-12-01 04:10:13.583475+00', NULL, 0, 0, NULL, true, 1, '{"hedged": false, "display": "Alice", "negated": false, "evidence": "My name is Alice", "language": "en", "extractor": "rules"}');
INSERT INTO public.memory VALUES ('d29829d630604a72ba26c04762b5d4dc', 'a7e895f7880442daba9b3bcc73b63d59', 'default', 'preference', 'user', 'diet', 'spicy food', 'User doesn''t eat spicy food.', 'user-stated', '[3]', 0.9, 0.695, 'active', NULL, NULL, '2026-12-01 04:10:13.219116+00', '2026-12-01 04:10:13.583542+00', NULL, 0, 0, NULL, true, 1, '{"hedged": false, "display": "spicy food", "negated": false, "evidence": "I don''t eat spicy food", "language": "en", "extractor": "rules"}');
INSERT INTO public.memory VALUES ('71ca594f14e440c59dda623c9bd4e6f5', '4741d1bc940a40748f8da3c154f713b1', 'default', 'fact', 'user', 'lives_in', '北京', '用户住在北京。', 'user-stated', '[7]', 0.9, 0.665, 'active', NULL, NULL, '2026-12-01 04:10:27.867086+00', '2026-12-01 04:10:28.140386+00', NULL, 0, 0, NULL, true, 1, '{"hedged": false, "display": "北京", "negated": false, "evidence": "我住在北京", "language": "zh", "extractor": "rules"}');
INSERT INTO public.memory VALUES ('1b6e1caa1fc24d888448ecf22607e955', '4741d1bc940a40748f8da3c154f713b1', 'default', 'preference', 'user', 'likes', '喝茶', '用户喜欢喝茶。', 'user-stated', '[7]', 0.9, 0.575, 'active', NULL, NULL, '2026-12-01 04:10:27.867086+00', '2026-12-01 04:10:28.140447+00', NULL, 0, 0, NULL, true, 1, '{"hedged": false, "display": "喝茶", "negated": false, "evidence": "我喜欢喝茶", "language": "zh", "extractor": "rules"}');
INSERT INTO public.memory VALUES ('16317fdfae7641bd97fd950fde60a019', '539cf445d14e4bb8a4fdfa26a8a839d2', 'default', 'fact', 'user', 'works_at', 'Acme', 'User works at Acme.', 'user-stated', '[11]', 0.9, 0.605, 'active', NULL, NULL, '2026-12-01 04:11:01.840819+00', '2026-12-01 04:11:02.121019+00', NULL, 0, 0, NULL, true, 1, '{"hedged": false, "display": "Acme", "negated": false, "evidence": "I work at Acme", "language": "en", "extractor": "rules"}');
INSERT INTO public.memory VALUES ('13325341b3c34a62907c46570514c80c', 'a7e895f7880442daba9b3bcc73b63d59', 'default', 'fact', 'user', 'lives_in', 'Shanghai', 'User moved to Shanghai and lives there now.', 'user-stated', '[1]', 0.9, 0.665, 'superseded', 'd29829d630604a72ba26c04762b5d4dc', NULL, '2026-12-01 04:10:07.369408+00', '2026-12-01 04:11:11.998597+00', NULL, 0, 0, NULL, true, 2, '{"hedged": false, "display": "Shanghai", "negated": false, "evidence": "I moved to Shanghai", "language": "en", "extractor": "rules"}');

INSERT INTO public.memoryevent VALUES (1, 'a7e895f7880442daba9b3bcc73b63d59', 'default', '13325341b3c34a62907c46570514c80c', 'ADD', 'new explicit statement (lives_in)', 'User moved to Shanghai and lives there now.', 1, 1, '{"op": "ADD", "type": "fact", "hedged": false, "object": "Shanghai", "reason": "new explicit statement (lives_in)", "content": "User moved to Shanghai and lives there now.", "negated": false, "subject": "user", "evidence": "I moved to Shanghai", "extractor": "rules", "memory_id": "13325341b3c34a62907c46570514c80c", "predicate": "lives_in", "confidence": 0.9, "event_time": null, "importance": 0.665, "similarity": null, "target_ids": [], "source_type": "user-stated"}', '2026-12-01 04:10:07.645114+00');
INSERT INTO public.memoryevent VALUES (2, 'a7e895f7880442daba9b3bcc73b63d59', 'default', '2ca6339209aa4ba394c8900fdfaf779d', 'ADD', 'new explicit statement (name)', 'User''s name is Alice.', 3, 2, '{"op": "ADD", "type": "fact", "hedged": false, "object": "Alice", "reason": "new explicit statement (name)", "content": "User''s name is Alice.", "negated": false, "subject": "user", "evidence": "My name is Alice", "extractor": "rules", "memory_id": "2ca6339209aa4ba394c8900fdfaf779d", "predicate": "name", "confidence": 0.9, "event_time": null, "importance": 0.695, "similarity": null, "target_ids": [], "source_type": "user-stated"}', '2026-12-01 04:10:13.589348+00');
INSERT INTO public.memoryevent VALUES (3, 'a7e895f7880442daba9b3bcc73b63d59', 'default', 'd29829d630604a72ba26c04762b5d4dc', 'ADD', 'new explicit statement (diet)', 'User doesn''t eat spicy food.', 3, 2, '{"op": "ADD", "type": "preference", "hedged": false, "object": "spicy food", "reason": "new explicit statement (diet)", "content": "User doesn''t eat spicy food.", "negated": false, "subject": "user", "evidence": "I don''t eat spicy food", "extractor": "rules", "memory_id": "d29829d630604a72ba26c04762b5d4dc", "predicate": "diet", "confidence": 0.9, "event_time": null, "importance": 0.695, "similarity": null, "target_ids": [], "source_type": "user-stated"}', '2026-12-01 04:10:13.589389+00');
INSERT INTO public.memoryevent VALUES (4, 'a7e895f7880442daba9b3bcc73b63d59', 'default', NULL, 'NOOP', 'not remembered: nothing about the user to remember', 'I actually moved to Hangzhou now', 5, 3, '{"stage": "classify"}', '2026-12-01 04:10:20.246438+00');
INSERT INTO public.memoryevent VALUES (5, '4741d1bc940a40748f8da3c154f713b1', 'default', '71ca594f14e440c59dda623c9bd4e6f5', 'ADD', 'new explicit statement (lives_in)', '用户住在北京。', 7, 4, '{"op": "ADD", "type": "fact", "hedged": false, "object": "北京", "reason": "new explicit statement (lives_in)", "content": "用户住在北京。", "negated": false, "subject": "user", "evidence": "我住在北京", "extractor": "rules", "memory_id": "71ca594f14e440c59dda623c9bd4e6f5", "predicate": "lives_in", "confidence": 0.9, "event_time": null, "importance": 0.665, "similarity": null, "target_ids": [], "source_type": "user-stated"}', '2026-12-01 04:10:28.147496+00');
INSERT INTO public.memoryevent VALUES (6, '4741d1bc940a40748f8da3c154f713b1', 'default', '1b6e1caa1fc24d888448ecf22607e955', 'ADD', 'new explicit statement (likes)', '用户喜欢喝茶。', 7, 4, '{"op": "ADD", "type": "preference", "hedged": false, "object": "喝茶", "reason": "new explicit statement (likes)", "content": "用户喜欢喝茶。", "negated": false, "subject": "user", "evidence": "我喜欢喝茶", "extractor": "rules", "memory_id": "1b6e1caa1fc24d888448ecf22607e955", "predicate": "likes", "confidence": 0.9, "event_time": null, "importance": 0.575, "similarity": null, "target_ids": [], "source_type": "user-stated"}', '2026-12-01 04:10:28.147542+00');
INSERT INTO public.memoryevent VALUES (7, 'a7e895f7880442daba9b3bcc73b63d59', 'default', NULL, 'NOOP', 'not remembered: no statement about the speaker', 'What do you remember?', 9, 5, '{"stage": "classify"}', '2026-12-01 04:10:48.935836+00');
INSERT INTO public.memoryevent VALUES (8, '539cf445d14e4bb8a4fdfa26a8a839d2', 'default', '16317fdfae7641bd97fd950fde60a019', 'ADD', 'new explicit statement (works_at)', 'User works at Acme.', 11, NULL, '{"op": "ADD", "type": "fact", "hedged": false, "object": "Acme", "reason": "new explicit statement (works_at)", "content": "User works at Acme.", "negated": false, "subject": "user", "evidence": "I work at Acme", "extractor": "rules", "memory_id": "16317fdfae7641bd97fd950fde60a019", "predicate": "works_at", "confidence": 0.9, "event_time": null, "importance": 0.605, "similarity": null, "target_ids": [], "source_type": "user-stated"}', '2026-12-01 04:11:02.126324+00');
INSERT INTO public.memoryevent VALUES (9, 'a7e895f7880442daba9b3bcc73b63d59', 'default', '13325341b3c34a62907c46570514c80c', 'SUPERSEDED', 'fixture: a person superseded it', 'User moved to Shanghai and lives there now.', NULL, NULL, '{}', '2026-12-01 04:11:11.998989+00');

INSERT INTO public.message VALUES (2, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 'assistant', '(Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

I do not remember anything about you yet.

Noted: "I moved to Shanghai last month".', 46, NULL, NULL, '{}', '2026-12-01 04:10:07.595972+00');
INSERT INTO public.message VALUES (1, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 'user', 'I moved to Shanghai last month', 6, NULL, '2026-12-01 04:10:07.611993+00', '{}', '2026-12-01 04:10:07.369408+00');
INSERT INTO public.message VALUES (4, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 'assistant', '(Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

What I know about you: city: Shanghai

Noted: "My name is Alice and I don''t eat spicy food".', 51, NULL, NULL, '{}', '2026-12-01 04:10:13.498136+00');
INSERT INTO public.message VALUES (3, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 'user', 'My name is Alice and I don''t eat spicy food', 10, NULL, '2026-12-01 04:10:13.557195+00', '{}', '2026-12-01 04:10:13.219116+00');
INSERT INTO public.message VALUES (6, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 'assistant', '(Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

What I know about you: city: Shanghai; display_name: Alice; dietary: doesn''t eat spicy food

Noted: "I actually moved to Hangzhou now".', 60, NULL, NULL, '{}', '2026-12-01 04:10:20.21911+00');
INSERT INTO public.message VALUES (5, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 'user', 'I actually moved to Hangzhou now', 7, NULL, '2026-12-01 04:10:20.239928+00', '{}', '2026-12-01 04:10:20.077592+00');
INSERT INTO public.message VALUES (8, 'e691797a93154ca5b4859d04c242668f', '4741d1bc940a40748f8da3c154f713b1', 'assistant', '（离线模式：没有配置语言模型，这条回复是根据我记住的内容拼出来的，不是模型写的。）

我还没有记住关于你的任何信息。

记下了：“我住在北京，我喜欢喝茶”。', 51, NULL, NULL, '{}', '2026-12-01 04:10:28.087484+00');
INSERT INTO public.message VALUES (7, 'e691797a93154ca5b4859d04c242668f', '4741d1bc940a40748f8da3c154f713b1', 'user', '我住在北京，我喜欢喝茶', 8, NULL, '2026-12-01 04:10:28.119641+00', '{}', '2026-12-01 04:10:27.867086+00');
INSERT INTO public.message VALUES (10, '59e323a892c7454088b87471a5ca9663', 'a7e895f7880442daba9b3bcc73b63d59', 'assistant', '(Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

Carried over from our last session: Last time you told me: I moved to Shanghai last month. Key points: My name is Alice and I don''t eat spicy food. Your last message was: "I actually moved to Hangzhou now"

What I know about you: city: Shanghai; display_name: Alice; dietary: doesn''t eat spicy food

You asked: "What do you remember?". No stored memory matches it closely; what I know about you is above.', 121, NULL, NULL, '{}', '2026-12-01 04:10:48.816501+00');
INSERT INTO public.message VALUES (9, '59e323a892c7454088b87471a5ca9663', 'a7e895f7880442daba9b3bcc73b63d59', 'user', 'What do you remember?', 5, NULL, '2026-12-01 04:10:48.918676+00', '{}', '2026-12-01 04:10:48.431559+00');
INSERT INTO public.message VALUES (11, 'c813ac2dc37042b9944ffbc328336cee', '539cf445d14e4bb8a4fdfa26a8a839d2', 'user', 'I work at Acme', 5, NULL, '2026-12-01 04:11:02.09157+00', '{}', '2026-12-01 04:11:01.840819+00');

INSERT INTO public.profilechange VALUES (1, 'a7e895f7880442daba9b3bcc73b63d59', 'city', 'null', '"Shanghai"', 'user-stated', 1, 'user states: ''I moved to Shanghai''', '2026-12-01 04:10:07.652655+00');
INSERT INTO public.profilechange VALUES (2, 'a7e895f7880442daba9b3bcc73b63d59', 'display_name', 'null', '"Alice"', 'user-stated', 3, 'user states: ''My name is Alice''', '2026-12-01 04:10:13.592652+00');
INSERT INTO public.profilechange VALUES (3, 'a7e895f7880442daba9b3bcc73b63d59', 'dietary', 'null', '["doesn''t eat spicy food"]', 'user-stated', 3, 'user states: "I don''t eat spicy food"', '2026-12-01 04:10:13.592652+00');
INSERT INTO public.profilechange VALUES (4, '4741d1bc940a40748f8da3c154f713b1', 'city', 'null', '"北京"', 'user-stated', 7, 'user states: ''我住在北京''', '2026-12-01 04:10:28.154312+00');
INSERT INTO public.profilechange VALUES (5, '4741d1bc940a40748f8da3c154f713b1', 'interests', 'null', '["喝茶"]', 'user-stated', 7, 'user states: ''我喜欢喝茶''', '2026-12-01 04:10:28.154312+00');
INSERT INTO public.profilechange VALUES (6, 'a7e895f7880442daba9b3bcc73b63d59', 'dietary', '["doesn''t eat spicy food"]', '"no spicy food"', 'person-edit', NULL, 'fixture edit', '2026-12-01 04:11:12.509567+00');

INSERT INTO public.profilefield VALUES (1, 'a7e895f7880442daba9b3bcc73b63d59', 'city', '"Shanghai"', 0.9, 'user-stated', 1, '2026-12-01 04:10:07.652655+00', 1);
INSERT INTO public.profilefield VALUES (2, 'a7e895f7880442daba9b3bcc73b63d59', 'display_name', '"Alice"', 0.9, 'user-stated', 3, '2026-12-01 04:10:13.592652+00', 1);
INSERT INTO public.profilefield VALUES (4, '4741d1bc940a40748f8da3c154f713b1', 'city', '"北京"', 0.9, 'user-stated', 7, '2026-12-01 04:10:28.154312+00', 1);
INSERT INTO public.profilefield VALUES (5, '4741d1bc940a40748f8da3c154f713b1', 'interests', '["喝茶"]', 0.9, 'user-stated', 7, '2026-12-01 04:10:28.154312+00', 1);
INSERT INTO public.profilefield VALUES (3, 'a7e895f7880442daba9b3bcc73b63d59', 'dietary', '"no spicy food"', 1, 'person-edit', NULL, '2026-12-01 04:11:12.494432+00', 2);

INSERT INTO public.retrieval VALUES (1, 'a7e895f7880442daba9b3bcc73b63d59', 'default', 'b482691bb31046a78bb93ef845959dd3', 1, 'I moved to Shanghai last month', 'I moved to Shanghai last month', 'hybrid', 5, 0.8, '{"k": 5, "mode": "hybrid", "pool": 100, "rrf_k": 60, "fusion": "linear", "day_boost": 1.0, "threshold": 0.8, "relative_cut": null, "neighbor_span": 2, "vector_weight": 0.3, "neighbor_weight": 0.5, "neighbor_weight_fts": 0.3}', 68.34247899996626, '2026-12-01 04:10:07.577072+00');
INSERT INTO public.retrieval VALUES (2, 'a7e895f7880442daba9b3bcc73b63d59', 'default', 'b482691bb31046a78bb93ef845959dd3', 2, 'My name is Alice and I don''t eat spicy food', 'My name is Alice and I don''t eat spicy food', 'hybrid', 5, 0.8, '{"k": 5, "mode": "hybrid", "pool": 100, "rrf_k": 60, "fusion": "linear", "day_boost": 1.0, "threshold": 0.8, "relative_cut": null, "neighbor_span": 2, "vector_weight": 0.3, "neighbor_weight": 0.5, "neighbor_weight_fts": 0.3}', 78.71023999996396, '2026-12-01 04:10:13.464488+00');
INSERT INTO public.retrieval VALUES (3, 'a7e895f7880442daba9b3bcc73b63d59', 'default', 'b482691bb31046a78bb93ef845959dd3', 3, 'I actually moved to Hangzhou now', 'I actually moved to Hangzhou now', 'hybrid', 5, 0.8, '{"k": 5, "mode": "hybrid", "pool": 100, "rrf_k": 60, "fusion": "linear", "day_boost": 1.0, "threshold": 0.8, "relative_cut": null, "neighbor_span": 2, "vector_weight": 0.3, "neighbor_weight": 0.5, "neighbor_weight_fts": 0.3}', 30.302964999975757, '2026-12-01 04:10:20.201585+00');
INSERT INTO public.retrieval VALUES (4, '4741d1bc940a40748f8da3c154f713b1', 'default', 'e691797a93154ca5b4859d04c242668f', 4, '我住在北京，我喜欢喝茶', '我住在北京，我喜欢喝茶', 'hybrid', 5, 0.8, '{"k": 5, "mode": "hybrid", "pool": 100, "rrf_k": 60, "fusion": "linear", "day_boost": 1.0, "threshold": 0.8, "relative_cut": null, "neighbor_span": 2, "vector_weight": 0.3, "neighbor_weight": 0.5, "neighbor_weight_fts": 0.3}', 29.927120000024843, '2026-12-01 04:10:28.074082+00');
INSERT INTO public.retrieval VALUES (5, 'a7e895f7880442daba9b3bcc73b63d59', 'default', '59e323a892c7454088b87471a5ca9663', 5, 'What do you remember?', 'What do you remember?', 'hybrid', 5, 0.8, '{"k": 5, "mode": "hybrid", "pool": 100, "rrf_k": 60, "fusion": "linear", "day_boost": 1.0, "threshold": 0.8, "relative_cut": null, "neighbor_span": 2, "vector_weight": 0.3, "neighbor_weight": 0.5, "neighbor_weight_fts": 0.3}', 47.75656299995035, '2026-12-01 04:10:48.770888+00');

INSERT INTO public.retrievalhit VALUES (1, 2, '13325341b3c34a62907c46570514c80c', 1, 0.707044, NULL, 0, false, false, false, 'below threshold');
INSERT INTO public.retrievalhit VALUES (2, 3, '13325341b3c34a62907c46570514c80c', 1, 0.687371, 0.94566, 2.427006, false, false, false, 'below threshold');
INSERT INTO public.retrievalhit VALUES (3, 3, 'd29829d630604a72ba26c04762b5d4dc', 2, 0.584643, NULL, 0.070591, false, false, false, 'below threshold');
INSERT INTO public.retrievalhit VALUES (4, 3, '2ca6339209aa4ba394c8900fdfaf779d', 3, 0.397072, NULL, -0.397597, false, false, false, 'below threshold');
INSERT INTO public.retrievalhit VALUES (5, 5, 'd29829d630604a72ba26c04762b5d4dc', 1, 0.61103, NULL, 0.256934, false, false, false, 'below threshold');
INSERT INTO public.retrievalhit VALUES (6, 5, '13325341b3c34a62907c46570514c80c', 2, 0.583557, NULL, 0.163918, false, false, false, 'below threshold');
INSERT INTO public.retrievalhit VALUES (7, 5, '2ca6339209aa4ba394c8900fdfaf779d', 3, 0.410843, NULL, -0.420852, false, false, false, 'below threshold');

INSERT INTO public.schemamigration VALUES (1, 'initial schema', '2026-12-01 04:10:06.601155+00');

INSERT INTO public.session VALUES ('e691797a93154ca5b4859d04c242668f', '4741d1bc940a40748f8da3c154f713b1', 'default', 's1', 'e8bc163c82eee18733288c7d4ac636db3a6deb013ef2d37b68322be20edc45cc', NULL, 'active', '2026-12-01 04:10:27.25569+00', '2026-12-01 04:10:28.087484+00', NULL);
INSERT INTO public.session VALUES ('b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 'default', 'trip', '34a389d790fc2bdd8458e5f1cde6933c97d11eeda65cf328b64460f0d68f04b5', NULL, 'ended', '2026-12-01 04:10:06.653353+00', '2026-12-01 04:10:20.21911+00', '2026-12-01 04:10:35.676838+00');
INSERT INTO public.session VALUES ('59e323a892c7454088b87471a5ca9663', 'a7e895f7880442daba9b3bcc73b63d59', 'default', 'next', 'c6c1c9a9c8543f1e4cd980064cf1625eeb61a90703b2464fff039f21682508b3', NULL, 'active', '2026-12-01 04:10:45.973602+00', '2026-12-01 04:10:48.816501+00', NULL);
INSERT INTO public.session VALUES ('c813ac2dc37042b9944ffbc328336cee', '539cf445d14e4bb8a4fdfa26a8a839d2', 'default', 'cli', '99bb88401742848e032fd6f51709415fb6be169a72d2e5d7fc44289255160d3c', NULL, 'active', '2026-12-01 04:11:00.262388+00', '2026-12-01 04:11:01.840819+00', NULL);

INSERT INTO public.sessionbridge VALUES (1, 'a7e895f7880442daba9b3bcc73b63d59', 'default', 'b482691bb31046a78bb93ef845959dd3', '59e323a892c7454088b87471a5ca9663', 'Last time you told me: I moved to Shanghai last month. Key points: My name is Alice and I don''t eat spicy food. Your last message was: "I actually moved to Hangzhou now"', 41, '2026-12-01 04:10:36.143666+00', '2026-12-01 04:10:46.206017+00');

INSERT INTO public.setting VALUES ('similarity_threshold', '0.82', '2026-12-01 04:11:11.883043+00');
INSERT INTO public.setting VALUES ('top_k', '4', '2026-12-01 04:11:11.900913+00');

INSERT INTO public.summaryanchor VALUES (1, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 1, 2, 'Points: I moved to Shanghai last month', 8, '2026-12-01 04:10:13.61579+00');
INSERT INTO public.summaryanchor VALUES (2, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 3, 4, 'Points: My name is Alice and I don''t eat spicy food', 12, '2026-12-01 04:10:20.253845+00');

INSERT INTO public.turn VALUES (1, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 1, 2, 'offline', '2026-12-01 04:10:07.381167+00');
INSERT INTO public.turn VALUES (2, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 3, 4, 'offline', '2026-12-01 04:10:13.225776+00');
INSERT INTO public.turn VALUES (3, 'b482691bb31046a78bb93ef845959dd3', 'a7e895f7880442daba9b3bcc73b63d59', 5, 6, 'offline', '2026-12-01 04:10:20.084158+00');
INSERT INTO public.turn VALUES (4, 'e691797a93154ca5b4859d04c242668f', '4741d1bc940a40748f8da3c154f713b1', 7, 8, 'offline', '2026-12-01 04:10:27.877089+00');
INSERT INTO public.turn VALUES (5, '59e323a892c7454088b87471a5ca9663', 'a7e895f7880442daba9b3bcc73b63d59', 9, 10, 'offline', '2026-12-01 04:10:48.46484+00');

INSERT INTO public."user" VALUES ('a7e895f7880442daba9b3bcc73b63d59', 'alice', '2bd806c97f0e00af1a1fc3328fa763a9269723c8db8fac4f93af71db186d6e90', NULL, '2026-12-01 04:10:06.640921+00');
INSERT INTO public."user" VALUES ('4741d1bc940a40748f8da3c154f713b1', '王芳', '8ac9540bf3a5f9df02ba749a8522a9a70bf6d02696deb8564adffc0569a17126', NULL, '2026-12-01 04:10:27.245375+00');
INSERT INTO public."user" VALUES ('539cf445d14e4bb8a4fdfa26a8a839d2', 'bob@example.com', '5ff860bf1190596c7188ab851db691f0f3169c453936e9e1eba2f9a47f7a0018', NULL, '2026-12-01 04:11:00.238756+00');

SELECT pg_catalog.setval('public.contextsection_id_seq', 35, true);

SELECT pg_catalog.setval('public.contextsnapshot_id_seq', 5, true);

SELECT pg_catalog.setval('public.hitlabel_id_seq', 1, true);

SELECT pg_catalog.setval('public.memoryevent_id_seq', 9, true);

SELECT pg_catalog.setval('public.message_id_seq', 11, true);

SELECT pg_catalog.setval('public.profilechange_id_seq', 6, true);

SELECT pg_catalog.setval('public.profilefield_id_seq', 5, true);

SELECT pg_catalog.setval('public.retrieval_id_seq', 5, true);

SELECT pg_catalog.setval('public.retrievalhit_id_seq', 7, true);

SELECT pg_catalog.setval('public.schemamigration_version_seq', 1, false);

SELECT pg_catalog.setval('public.sessionbridge_id_seq', 1, true);

SELECT pg_catalog.setval('public.summaryanchor_id_seq', 2, true);

SELECT pg_catalog.setval('public.turn_id_seq', 5, true);

ALTER TABLE ONLY public.contextsection
    ADD CONSTRAINT contextsection_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.contextsnapshot
    ADD CONSTRAINT contextsnapshot_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.hitlabel
    ADD CONSTRAINT hitlabel_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.hitlabel
    ADD CONSTRAINT hitlabel_retrieval_id_memory_id_key UNIQUE (retrieval_id, memory_id);

ALTER TABLE ONLY public.memory
    ADD CONSTRAINT memory_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.memoryevent
    ADD CONSTRAINT memoryevent_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.message
    ADD CONSTRAINT message_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.message
    ADD CONSTRAINT message_user_key_idempotency_key_key UNIQUE (user_key, idempotency_key);

ALTER TABLE ONLY public.profilechange
    ADD CONSTRAINT profilechange_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.profilefield
    ADD CONSTRAINT profilefield_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.profilefield
    ADD CONSTRAINT profilefield_user_key_field_key UNIQUE (user_key, field);

ALTER TABLE ONLY public.retrieval
    ADD CONSTRAINT retrieval_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.retrievalhit
    ADD CONSTRAINT retrievalhit_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.schemamigration
    ADD CONSTRAINT schemamigration_pkey PRIMARY KEY (version);

ALTER TABLE ONLY public.session
    ADD CONSTRAINT session_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.session
    ADD CONSTRAINT session_user_key_agent_id_external_hash_key UNIQUE (user_key, agent_id, external_hash);

ALTER TABLE ONLY public.sessionbridge
    ADD CONSTRAINT sessionbridge_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.setting
    ADD CONSTRAINT setting_pkey PRIMARY KEY (key);

ALTER TABLE ONLY public.summaryanchor
    ADD CONSTRAINT summaryanchor_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.turn
    ADD CONSTRAINT turn_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public."user"
    ADD CONSTRAINT user_external_hash_key UNIQUE (external_hash);

ALTER TABLE ONLY public."user"
    ADD CONSTRAINT user_pkey PRIMARY KEY (key);

CREATE INDEX ix_contextsection_snapshot_id ON public.contextsection USING btree (snapshot_id);

CREATE INDEX ix_contextsnapshot_session_id ON public.contextsnapshot USING btree (session_id);

CREATE INDEX ix_contextsnapshot_turn_id ON public.contextsnapshot USING btree (turn_id);

CREATE INDEX ix_contextsnapshot_user_key ON public.contextsnapshot USING btree (user_key);

CREATE INDEX ix_hitlabel_retrieval_id ON public.hitlabel USING btree (retrieval_id);

CREATE INDEX ix_hitlabel_user_key ON public.hitlabel USING btree (user_key);

CREATE INDEX ix_memory_indexed ON public.memory USING btree (indexed);

CREATE INDEX ix_memory_user_agent_status ON public.memory USING btree (user_key, agent_id, status);

CREATE INDEX ix_memory_user_created ON public.memory USING btree (user_key, created_at);

CREATE INDEX ix_memoryevent_created_at ON public.memoryevent USING btree (created_at);

CREATE INDEX ix_memoryevent_memory_id ON public.memoryevent USING btree (memory_id);

CREATE INDEX ix_memoryevent_message_id ON public.memoryevent USING btree (message_id);

CREATE INDEX ix_memoryevent_user_key ON public.memoryevent USING btree (user_key);

CREATE INDEX ix_message_session_id_id ON public.message USING btree (session_id, id);

CREATE INDEX ix_message_user_key ON public.message USING btree (user_key);

CREATE INDEX ix_profilechange_user_key ON public.profilechange USING btree (user_key);

CREATE INDEX ix_profilefield_user_key ON public.profilefield USING btree (user_key);

CREATE INDEX ix_retrieval_created_at ON public.retrieval USING btree (created_at);

CREATE INDEX ix_retrieval_turn_id ON public.retrieval USING btree (turn_id);

CREATE INDEX ix_retrieval_user_key ON public.retrieval USING btree (user_key);

CREATE INDEX ix_retrievalhit_memory_id ON public.retrievalhit USING btree (memory_id);

CREATE INDEX ix_retrievalhit_retrieval_id ON public.retrievalhit USING btree (retrieval_id);

CREATE INDEX ix_session_user_key ON public.session USING btree (user_key);

CREATE INDEX ix_sessionbridge_from_session_id ON public.sessionbridge USING btree (from_session_id);

CREATE INDEX ix_sessionbridge_to_session_id ON public.sessionbridge USING btree (to_session_id);

CREATE INDEX ix_sessionbridge_user_key ON public.sessionbridge USING btree (user_key);

CREATE INDEX ix_summaryanchor_session_id ON public.summaryanchor USING btree (session_id);

CREATE INDEX ix_summaryanchor_user_key ON public.summaryanchor USING btree (user_key);

CREATE INDEX ix_turn_session_id ON public.turn USING btree (session_id);

CREATE INDEX ix_turn_user_key ON public.turn USING btree (user_key);

ALTER TABLE ONLY public.contextsection
    ADD CONSTRAINT contextsection_snapshot_id_fkey FOREIGN KEY (snapshot_id) REFERENCES public.contextsnapshot(id);

ALTER TABLE ONLY public.memory
    ADD CONSTRAINT memory_user_key_fkey FOREIGN KEY (user_key) REFERENCES public."user"(key);

ALTER TABLE ONLY public.message
    ADD CONSTRAINT message_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.session(id);

ALTER TABLE ONLY public.profilechange
    ADD CONSTRAINT profilechange_user_key_fkey FOREIGN KEY (user_key) REFERENCES public."user"(key);

ALTER TABLE ONLY public.profilefield
    ADD CONSTRAINT profilefield_user_key_fkey FOREIGN KEY (user_key) REFERENCES public."user"(key);

ALTER TABLE ONLY public.retrievalhit
    ADD CONSTRAINT retrievalhit_retrieval_id_fkey FOREIGN KEY (retrieval_id) REFERENCES public.retrieval(id);

ALTER TABLE ONLY public.session
    ADD CONSTRAINT session_user_key_fkey FOREIGN KEY (user_key) REFERENCES public."user"(key);

ALTER TABLE ONLY public.summaryanchor
    ADD CONSTRAINT summaryanchor_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.session(id);
