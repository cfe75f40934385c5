-- A SQLite database made by the first release's code (commit fd058ec): `memlens chat` / `end-session` /
-- `remember` turns as alice, 王芳 and bob@example.com, then a hit label, two live settings, a person's supersede and
-- a profile edit (see docs/architecture.md, "Adding a migration"). LangGraph checkpoint tables left out.
-- tests/test_migrations.py upgrades it to the current schema. Never edit it.
BEGIN TRANSACTION;
CREATE TABLE contextsection (
	id INTEGER NOT NULL, 
	snapshot_id INTEGER NOT NULL, 
	name VARCHAR(32) NOT NULL, 
	position INTEGER NOT NULL, 
	budget INTEGER NOT NULL, 
	used INTEGER NOT NULL, 
	kept INTEGER NOT NULL, 
	dropped INTEGER NOT NULL, 
	dropped_items JSON NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(snapshot_id) REFERENCES contextsnapshot (id)
);
INSERT INTO "contextsection" VALUES(1,1,'system',0,400,51,1,0,'[]');
INSERT INTO "contextsection" VALUES(2,1,'profile',1,300,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(3,1,'bridge',2,200,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(4,1,'summary',3,600,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(5,1,'memories',4,1500,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(6,1,'history',5,7107,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(7,1,'input',6,7117,10,1,0,'[]');
INSERT INTO "contextsection" VALUES(8,2,'system',0,400,51,1,0,'[]');
INSERT INTO "contextsection" VALUES(9,2,'profile',1,300,15,1,0,'[]');
INSERT INTO "contextsection" VALUES(10,2,'bridge',2,200,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(11,2,'summary',3,600,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(12,2,'memories',4,1500,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(13,2,'history',5,7088,60,2,0,'[]');
INSERT INTO "contextsection" VALUES(14,2,'input',6,7117,14,1,0,'[]');
INSERT INTO "contextsection" VALUES(15,3,'system',0,400,51,1,0,'[]');
INSERT INTO "contextsection" VALUES(16,3,'profile',1,300,29,3,0,'[]');
INSERT INTO "contextsection" VALUES(17,3,'bridge',2,200,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(18,3,'summary',3,600,14,1,0,'[]');
INSERT INTO "contextsection" VALUES(19,3,'memories',4,1500,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(20,3,'history',5,7063,69,2,0,'[]');
INSERT INTO "contextsection" VALUES(21,3,'input',6,7117,11,1,0,'[]');
INSERT INTO "contextsection" VALUES(22,4,'system',0,400,51,1,0,'[]');
INSERT INTO "contextsection" VALUES(23,4,'profile',1,300,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(24,4,'bridge',2,200,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(25,4,'summary',3,600,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(26,4,'memories',4,1500,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(27,4,'history',5,7105,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(28,4,'input',6,7117,12,1,0,'[]');
INSERT INTO "contextsection" VALUES(29,5,'system',0,400,51,1,0,'[]');
INSERT INTO "contextsection" VALUES(30,5,'profile',1,300,29,3,0,'[]');
INSERT INTO "contextsection" VALUES(31,5,'bridge',2,200,46,1,0,'[]');
INSERT INTO "contextsection" VALUES(32,5,'summary',3,600,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(33,5,'memories',4,1500,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(34,5,'history',5,7033,0,0,0,'[]');
INSERT INTO "contextsection" VALUES(35,5,'input',6,7117,9,1,0,'[]');
CREATE TABLE contextsnapshot (
	id INTEGER NOT NULL, 
	turn_id INTEGER, 
	session_id VARCHAR(32), 
	user_key VARCHAR(32) NOT NULL, 
	total_budget INTEGER NOT NULL, 
	total_used INTEGER NOT NULL, 
	prompt TEXT NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "contextsnapshot" VALUES(1,1,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc',7168,61,'[system] You are a helpful assistant with a long-term memory. The sections below are what you remember about this user: use them when they help, never invent memories, and say so when you do not know. Reply in the user''s language.

[human] I moved to Shanghai last month','2026-12-01 04:08:55.017909');
INSERT INTO "contextsnapshot" VALUES(2,2,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc',7168,138,'[system] You are a helpful assistant with a long-term memory. The sections below are what you remember about this user: use them when they help, never invent memories, and say so when you do not know. Reply in the user''s language.

## Profile (stated by the user)
- city: Shanghai

[human] I moved to Shanghai last month

[ai] (Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

I do not remember anything about you yet.

Noted: "I moved to Shanghai last month".

[human] My name is Alice and I don''t eat spicy food','2026-12-01 04:09:02.733778');
INSERT INTO "contextsnapshot" VALUES(3,3,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc',7168,172,'[system] You are a helpful assistant with a long-term memory. The sections below are what you remember about this user: use them when they help, never invent memories, and say so when you do not know. Reply in the user''s language.

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

[human] I actually moved to Hangzhou now','2026-12-01 04:09:08.269782');
INSERT INTO "contextsnapshot" VALUES(4,4,'59164ff5530b4c2797447ce389ddd849','f92e5175c79642d3bd6fb1c882e0cad1',7168,63,'[system] You are a helpful assistant with a long-term memory. The sections below are what you remember about this user: use them when they help, never invent memories, and say so when you do not know. Reply in the user''s language.

[human] 我住在北京，我喜欢喝茶','2026-12-01 04:09:14.197885');
INSERT INTO "contextsnapshot" VALUES(5,5,'7f220cc8a01d40bdbb09c9bffd30d1a4','363fb3f4f03046d5be4229d2bde05fdc',7168,133,'[system] You are a helpful assistant with a long-term memory. The sections below are what you remember about this user: use them when they help, never invent memories, and say so when you do not know. Reply in the user''s language.

## Profile (stated by the user)
- city: Shanghai
- display_name: Alice
- dietary: doesn''t eat spicy food

## Last session
Last time you told me: I moved to Shanghai last month. Key points: My name is Alice and I don''t eat spicy food. Your last message was: "I actually moved to Hangzhou now"

[human] What do you remember?','2026-12-01 04:09:24.127838');
CREATE TABLE hitlabel (
	id INTEGER NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	retrieval_id INTEGER NOT NULL, 
	memory_id VARCHAR(32) NOT NULL, 
	relevant BOOLEAN NOT NULL, 
	labeled_by VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (retrieval_id, memory_id)
);
INSERT INTO "hitlabel" VALUES(1,'363fb3f4f03046d5be4229d2bde05fdc',2,'1a6f2556eaf144f2bf79171f0d359ab8',1,'team','2026-12-01 04:09:37.627393');
CREATE TABLE memory (
	id VARCHAR(32) NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	agent_id VARCHAR(64) NOT NULL, 
	type VARCHAR(16) NOT NULL, 
	subject VARCHAR, 
	predicate VARCHAR, 
	object TEXT, 
	content TEXT NOT NULL, 
	source_type VARCHAR(16) NOT NULL, 
	source_message_ids JSON NOT NULL, 
	confidence FLOAT NOT NULL, 
	importance FLOAT NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	superseded_by VARCHAR(32), 
	event_time DATETIME, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	last_accessed_at DATETIME, 
	access_count INTEGER NOT NULL, 
	reinforce_count INTEGER NOT NULL, 
	expires_at DATETIME, 
	"indexed" BOOLEAN NOT NULL, 
	version INTEGER NOT NULL, 
	meta JSON NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(user_key) REFERENCES user ("key")
);
INSERT INTO "memory" VALUES('1a6f2556eaf144f2bf79171f0d359ab8','363fb3f4f03046d5be4229d2bde05fdc','default','fact','user','lives_in','Shanghai','User moved to Shanghai and lives there now.','user-stated','[1]',0.9,0.665,'superseded','ce36af939efa4cabb9ecbe8bdf409e47',NULL,'2026-12-01 04:08:54.688551','2026-12-01 04:09:37.634090',NULL,0,0,NULL,1,2,'{"extractor": "rules", "evidence": "I moved to Shanghai", "language": "en", "negated": false, "hedged": false, "display": "Shanghai"}');
INSERT INTO "memory" VALUES('e5c3e4b5fb07411daa0e4492c12e88e4','363fb3f4f03046d5be4229d2bde05fdc','default','fact','user','name','Alice','User''s name is Alice.','user-stated','[3]',0.9,0.695,'active',NULL,NULL,'2026-12-01 04:09:02.596401','2026-12-01 04:09:02.767305',NULL,0,0,NULL,1,1,'{"extractor": "rules", "evidence": "My name is Alice", "language": "en", "negated": false, "hedged": false, "display": "Alice"}');
INSERT INTO "memory" VALUES('ce36af939efa4cabb9ecbe8bdf409e47','363fb3f4f03046d5be4229d2bde05fdc','default','preference','user','diet','spicy food','User doesn''t eat spicy food.','user-stated','[3]',0.9,0.695,'active',NULL,NULL,'2026-12-01 04:09:02.596401','2026-12-01 04:09:02.767353',NULL,0,0,NULL,1,1,'{"extractor": "rules", "evidence": "I don''t eat spicy food", "language": "en", "negated": false, "hedged": false, "display": "spicy food"}');
INSERT INTO "memory" VALUES('c627a194551a419b82414702e6a60fb4','f92e5175c79642d3bd6fb1c882e0cad1','default','fact','user','lives_in','北京','用户住在北京。','user-stated','[7]',0.9,0.665,'active',NULL,NULL,'2026-12-01 04:09:14.081956','2026-12-01 04:09:14.227743',NULL,0,0,NULL,1,1,'{"extractor": "rules", "evidence": "\u6211\u4f4f\u5728\u5317\u4eac", "language": "zh", "negated": false, "hedged": false, "display": "\u5317\u4eac"}');
INSERT INTO "memory" VALUES('646049dcc574451bb2ef683c6f5140d1','f92e5175c79642d3bd6fb1c882e0cad1','default','preference','user','likes','喝茶','用户喜欢喝茶。','user-stated','[7]',0.9,0.575,'active',NULL,NULL,'2026-12-01 04:09:14.081956','2026-12-01 04:09:14.227793',NULL,0,0,NULL,1,1,'{"extractor": "rules", "evidence": "\u6211\u559c\u6b22\u559d\u8336", "language": "zh", "negated": false, "hedged": false, "display": "\u559d\u8336"}');
INSERT INTO "memory" VALUES('370aa26883574ea2ba0e2140d4604edf','8d9ca12a6c794c54b4f7fa9668fc9195','default','fact','user','works_at','Acme','User works at Acme.','user-stated','[11]',0.9,0.605,'active',NULL,NULL,'2026-12-01 04:09:27.520870','2026-12-01 04:09:27.637772',NULL,0,0,NULL,1,1,'{"extractor": "rules", "evidence": "I work at Acme", "language": "en", "negated": false, "hedged": false, "display": "Acme"}');
CREATE TABLE memoryevent (
	id INTEGER NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	agent_id VARCHAR(64) NOT NULL, 
	memory_id VARCHAR(32), 
	op VARCHAR(16) NOT NULL, 
	reason VARCHAR NOT NULL, 
	content TEXT NOT NULL, 
	message_id INTEGER, 
	turn_id INTEGER, 
	detail JSON NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "memoryevent" VALUES(1,'363fb3f4f03046d5be4229d2bde05fdc','default','1a6f2556eaf144f2bf79171f0d359ab8','ADD','new explicit statement (lives_in)','User moved to Shanghai and lives there now.',1,1,'{"op": "ADD", "reason": "new explicit statement (lives_in)", "content": "User moved to Shanghai and lives there now.", "type": "fact", "predicate": "lives_in", "object": "Shanghai", "confidence": 0.9, "importance": 0.665, "similarity": null, "source_type": "user-stated", "hedged": false, "negated": false, "event_time": null, "evidence": "I moved to Shanghai", "extractor": "rules", "subject": "user", "memory_id": "1a6f2556eaf144f2bf79171f0d359ab8", "target_ids": []}','2026-12-01 04:08:55.088968');
INSERT INTO "memoryevent" VALUES(2,'363fb3f4f03046d5be4229d2bde05fdc','default','e5c3e4b5fb07411daa0e4492c12e88e4','ADD','new explicit statement (name)','User''s name is Alice.',3,2,'{"op": "ADD", "reason": "new explicit statement (name)", "content": "User''s name is Alice.", "type": "fact", "predicate": "name", "object": "Alice", "confidence": 0.9, "importance": 0.695, "similarity": null, "source_type": "user-stated", "hedged": false, "negated": false, "event_time": null, "evidence": "My name is Alice", "extractor": "rules", "subject": "user", "memory_id": "e5c3e4b5fb07411daa0e4492c12e88e4", "target_ids": []}','2026-12-01 04:09:02.768135');
INSERT INTO "memoryevent" VALUES(3,'363fb3f4f03046d5be4229d2bde05fdc','default','ce36af939efa4cabb9ecbe8bdf409e47','ADD','new explicit statement (diet)','User doesn''t eat spicy food.',3,2,'{"op": "ADD", "reason": "new explicit statement (diet)", "content": "User doesn''t eat spicy food.", "type": "preference", "predicate": "diet", "object": "spicy food", "confidence": 0.9, "importance": 0.695, "similarity": null, "source_type": "user-stated", "hedged": false, "negated": false, "event_time": null, "evidence": "I don''t eat spicy food", "extractor": "rules", "subject": "user", "memory_id": "ce36af939efa4cabb9ecbe8bdf409e47", "target_ids": []}','2026-12-01 04:09:02.768165');
INSERT INTO "memoryevent" VALUES(4,'363fb3f4f03046d5be4229d2bde05fdc','default',NULL,'NOOP','not remembered: nothing about the user to remember','I actually moved to Hangzhou now',5,3,'{"stage": "classify"}','2026-12-01 04:09:08.303181');
INSERT INTO "memoryevent" VALUES(5,'f92e5175c79642d3bd6fb1c882e0cad1','default','c627a194551a419b82414702e6a60fb4','ADD','new explicit statement (lives_in)','用户住在北京。',7,4,'{"op": "ADD", "reason": "new explicit statement (lives_in)", "content": "\u7528\u6237\u4f4f\u5728\u5317\u4eac\u3002", "type": "fact", "predicate": "lives_in", "object": "\u5317\u4eac", "confidence": 0.9, "importance": 0.665, "similarity": null, "source_type": "user-stated", "hedged": false, "negated": false, "event_time": null, "evidence": "\u6211\u4f4f\u5728\u5317\u4eac", "extractor": "rules", "subject": "user", "memory_id": "c627a194551a419b82414702e6a60fb4", "target_ids": []}','2026-12-01 04:09:14.228650');
INSERT INTO "memoryevent" VALUES(6,'f92e5175c79642d3bd6fb1c882e0cad1','default','646049dcc574451bb2ef683c6f5140d1','ADD','new explicit statement (likes)','用户喜欢喝茶。',7,4,'{"op": "ADD", "reason": "new explicit statement (likes)", "content": "\u7528\u6237\u559c\u6b22\u559d\u8336\u3002", "type": "preference", "predicate": "likes", "object": "\u559d\u8336", "confidence": 0.9, "importance": 0.575, "similarity": null, "source_type": "user-stated", "hedged": false, "negated": false, "event_time": null, "evidence": "\u6211\u559c\u6b22\u559d\u8336", "extractor": "rules", "subject": "user", "memory_id": "646049dcc574451bb2ef683c6f5140d1", "target_ids": []}','2026-12-01 04:09:14.228681');
INSERT INTO "memoryevent" VALUES(7,'363fb3f4f03046d5be4229d2bde05fdc','default',NULL,'NOOP','not remembered: no statement about the speaker','What do you remember?',9,5,'{"stage": "classify"}','2026-12-01 04:09:24.152294');
INSERT INTO "memoryevent" VALUES(8,'8d9ca12a6c794c54b4f7fa9668fc9195','default','370aa26883574ea2ba0e2140d4604edf','ADD','new explicit statement (works_at)','User works at Acme.',11,NULL,'{"op": "ADD", "reason": "new explicit statement (works_at)", "content": "User works at Acme.", "type": "fact", "predicate": "works_at", "object": "Acme", "confidence": 0.9, "importance": 0.605, "similarity": null, "source_type": "user-stated", "hedged": false, "negated": false, "event_time": null, "evidence": "I work at Acme", "extractor": "rules", "subject": "user", "memory_id": "370aa26883574ea2ba0e2140d4604edf", "target_ids": []}','2026-12-01 04:09:27.639312');
INSERT INTO "memoryevent" VALUES(9,'363fb3f4f03046d5be4229d2bde05fdc','default','1a6f2556eaf144f2bf79171f0d359ab8','SUPERSEDED','fixture: a person superseded it','User moved to Shanghai and lives there now.',NULL,NULL,'{}','2026-12-01 04:09:37.634286');
CREATE TABLE message (
	id INTEGER NOT NULL, 
	session_id VARCHAR(32) NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	role VARCHAR(16) NOT NULL, 
	content TEXT NOT NULL, 
	tokens INTEGER NOT NULL, 
	idempotency_key VARCHAR(128), 
	write_claimed_at DATETIME, 
	meta JSON NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (user_key, idempotency_key), 
	FOREIGN KEY(session_id) REFERENCES session (id)
);
INSERT INTO "message" VALUES(1,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc','user','I moved to Shanghai last month',6,NULL,'2026-12-01 04:08:55.063935','{}','2026-12-01 04:08:54.688551');
INSERT INTO "message" VALUES(2,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc','assistant','(Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

I do not remember anything about you yet.

Noted: "I moved to Shanghai last month".',46,NULL,NULL,'{}','2026-12-01 04:08:55.034542');
INSERT INTO "message" VALUES(3,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc','user','My name is Alice and I don''t eat spicy food',10,NULL,'2026-12-01 04:09:02.759825','{}','2026-12-01 04:09:02.596401');
INSERT INTO "message" VALUES(4,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc','assistant','(Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

What I know about you: city: Shanghai

Noted: "My name is Alice and I don''t eat spicy food".',51,NULL,NULL,'{}','2026-12-01 04:09:02.743979');
INSERT INTO "message" VALUES(5,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc','user','I actually moved to Hangzhou now',7,NULL,'2026-12-01 04:09:08.297708','{}','2026-12-01 04:09:08.141945');
INSERT INTO "message" VALUES(6,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc','assistant','(Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

What I know about you: city: Shanghai; display_name: Alice; dietary: doesn''t eat spicy food

Noted: "I actually moved to Hangzhou now".',60,NULL,NULL,'{}','2026-12-01 04:09:08.279165');
INSERT INTO "message" VALUES(7,'59164ff5530b4c2797447ce389ddd849','f92e5175c79642d3bd6fb1c882e0cad1','user','我住在北京，我喜欢喝茶',8,NULL,'2026-12-01 04:09:14.219993','{}','2026-12-01 04:09:14.081956');
INSERT INTO "message" VALUES(8,'59164ff5530b4c2797447ce389ddd849','f92e5175c79642d3bd6fb1c882e0cad1','assistant','（离线模式：没有配置语言模型，这条回复是根据我记住的内容拼出来的，不是模型写的。）

我还没有记住关于你的任何信息。

记下了：“我住在北京，我喜欢喝茶”。',51,NULL,NULL,'{}','2026-12-01 04:09:14.203889');
INSERT INTO "message" VALUES(9,'7f220cc8a01d40bdbb09c9bffd30d1a4','363fb3f4f03046d5be4229d2bde05fdc','user','What do you remember?',5,NULL,'2026-12-01 04:09:24.150062','{}','2026-12-01 04:09:24.010962');
INSERT INTO "message" VALUES(10,'7f220cc8a01d40bdbb09c9bffd30d1a4','363fb3f4f03046d5be4229d2bde05fdc','assistant','(Offline mode: no language model is configured, so this reply is assembled from what I remember, not written by a model.)

Carried over from our last session: Last time you told me: I moved to Shanghai last month. Key points: My name is Alice and I don''t eat spicy food. Your last message was: "I actually moved to Hangzhou now"

What I know about you: city: Shanghai; display_name: Alice; dietary: doesn''t eat spicy food

You asked: "What do you remember?". No stored memory matches it closely; what I know about you is above.',121,NULL,NULL,'{}','2026-12-01 04:09:24.136068');
INSERT INTO "message" VALUES(11,'98e4f568f10c48fc912cc8992f7cce98','8d9ca12a6c794c54b4f7fa9668fc9195','user','I work at Acme',5,NULL,'2026-12-01 04:09:27.624417','{}','2026-12-01 04:09:27.520870');
CREATE TABLE profilechange (
	id INTEGER NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	field VARCHAR(64) NOT NULL, 
	old_value JSON, 
	new_value JSON, 
	source VARCHAR NOT NULL, 
	source_message_id INTEGER, 
	reason VARCHAR NOT NULL, 
	at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(user_key) REFERENCES user ("key")
);
INSERT INTO "profilechange" VALUES(1,'363fb3f4f03046d5be4229d2bde05fdc','city','null','"Shanghai"','user-stated',1,'user states: ''I moved to Shanghai''','2026-12-01 04:08:55.090371');
INSERT INTO "profilechange" VALUES(2,'363fb3f4f03046d5be4229d2bde05fdc','display_name','null','"Alice"','user-stated',3,'user states: ''My name is Alice''','2026-12-01 04:09:02.769338');
INSERT INTO "profilechange" VALUES(3,'363fb3f4f03046d5be4229d2bde05fdc','dietary','null','["doesn''t eat spicy food"]','user-stated',3,'user states: "I don''t eat spicy food"','2026-12-01 04:09:02.769338');
INSERT INTO "profilechange" VALUES(4,'f92e5175c79642d3bd6fb1c882e0cad1','city','null','"\u5317\u4eac"','user-stated',7,'user states: ''我住在北京''','2026-12-01 04:09:14.229753');
INSERT INTO "profilechange" VALUES(5,'f92e5175c79642d3bd6fb1c882e0cad1','interests','null','["\u559d\u8336"]','user-stated',7,'user states: ''我喜欢喝茶''','2026-12-01 04:09:14.229753');
INSERT INTO "profilechange" VALUES(6,'363fb3f4f03046d5be4229d2bde05fdc','dietary','["doesn''t eat spicy food"]','"no spicy food"','person-edit',NULL,'fixture edit','2026-12-01 04:09:46.838740');
CREATE TABLE profilefield (
	id INTEGER NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	field VARCHAR(64) NOT NULL, 
	value JSON NOT NULL, 
	confidence FLOAT NOT NULL, 
	source VARCHAR NOT NULL, 
	source_message_id INTEGER, 
	updated_at DATETIME NOT NULL, 
	version INTEGER NOT NULL, 
	PRIMARY KEY (id), 
	UNIQUE (user_key, field), 
	FOREIGN KEY(user_key) REFERENCES user ("key")
);
INSERT INTO "profilefield" VALUES(1,'363fb3f4f03046d5be4229d2bde05fdc','city','"Shanghai"',0.9,'user-stated',1,'2026-12-01 04:08:55.090371',1);
INSERT INTO "profilefield" VALUES(2,'363fb3f4f03046d5be4229d2bde05fdc','display_name','"Alice"',0.9,'user-stated',3,'2026-12-01 04:09:02.769338',1);
INSERT INTO "profilefield" VALUES(3,'363fb3f4f03046d5be4229d2bde05fdc','dietary','"no spicy food"',1.0,'person-edit',NULL,'2026-12-01 04:09:46.831714',2);
INSERT INTO "profilefield" VALUES(4,'f92e5175c79642d3bd6fb1c882e0cad1','city','"\u5317\u4eac"',0.9,'user-stated',7,'2026-12-01 04:09:14.229753',1);
INSERT INTO "profilefield" VALUES(5,'f92e5175c79642d3bd6fb1c882e0cad1','interests','["\u559d\u8336"]',0.9,'user-stated',7,'2026-12-01 04:09:14.229753',1);
CREATE TABLE retrieval (
	id INTEGER NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	agent_id VARCHAR(64) NOT NULL, 
	session_id VARCHAR(32), 
	turn_id INTEGER, 
	"query" TEXT NOT NULL, 
	retrieval_query TEXT NOT NULL, 
	mode VARCHAR NOT NULL, 
	k INTEGER NOT NULL, 
	threshold FLOAT NOT NULL, 
	params JSON NOT NULL, 
	latency_ms FLOAT NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "retrieval" VALUES(1,'363fb3f4f03046d5be4229d2bde05fdc','default','678c0f946eb44a48aafb2eddc6e2d0e5',1,'I moved to Shanghai last month','I moved to Shanghai last month','hybrid',5,0.8,'{"mode": "hybrid", "k": 5, "threshold": 0.8, "relative_cut": null, "fusion": "linear", "vector_weight": 0.3, "rrf_k": 60, "pool": 100, "neighbor_weight": 0.5, "neighbor_weight_fts": 0.3, "neighbor_span": 2, "day_boost": 1.0}',9.34537179999779255012e+01,'2026-12-01 04:08:55.009618');
INSERT INTO "retrieval" VALUES(2,'363fb3f4f03046d5be4229d2bde05fdc','default','678c0f946eb44a48aafb2eddc6e2d0e5',2,'My name is Alice and I don''t eat spicy food','My name is Alice and I don''t eat spicy food','hybrid',5,0.8,'{"mode": "hybrid", "k": 5, "threshold": 0.8, "relative_cut": null, "fusion": "linear", "vector_weight": 0.3, "rrf_k": 60, "pool": 100, "neighbor_weight": 0.5, "neighbor_weight_fts": 0.3, "neighbor_span": 2, "day_boost": 1.0}',3.08070880000173019652e+01,'2026-12-01 04:09:02.729805');
INSERT INTO "retrieval" VALUES(3,'363fb3f4f03046d5be4229d2bde05fdc','default','678c0f946eb44a48aafb2eddc6e2d0e5',3,'I actually moved to Hangzhou now','I actually moved to Hangzhou now','hybrid',5,0.8,'{"mode": "hybrid", "k": 5, "threshold": 0.8, "relative_cut": null, "fusion": "linear", "vector_weight": 0.3, "rrf_k": 60, "pool": 100, "neighbor_weight": 0.5, "neighbor_weight_fts": 0.3, "neighbor_span": 2, "day_boost": 1.0}',3.26670460000286766444e+01,'2026-12-01 04:09:08.265646');
INSERT INTO "retrieval" VALUES(4,'f92e5175c79642d3bd6fb1c882e0cad1','default','59164ff5530b4c2797447ce389ddd849',4,'我住在北京，我喜欢喝茶','我住在北京，我喜欢喝茶','hybrid',5,0.8,'{"mode": "hybrid", "k": 5, "threshold": 0.8, "relative_cut": null, "fusion": "linear", "vector_weight": 0.3, "rrf_k": 60, "pool": 100, "neighbor_weight": 0.5, "neighbor_weight_fts": 0.3, "neighbor_span": 2, "day_boost": 1.0}',2.46008499999561536242e+01,'2026-12-01 04:09:14.194585');
INSERT INTO "retrieval" VALUES(5,'363fb3f4f03046d5be4229d2bde05fdc','default','7f220cc8a01d40bdbb09c9bffd30d1a4',5,'What do you remember?','What do you remember?','hybrid',5,0.8,'{"mode": "hybrid", "k": 5, "threshold": 0.8, "relative_cut": null, "fusion": "linear", "vector_weight": 0.3, "rrf_k": 60, "pool": 100, "neighbor_weight": 0.5, "neighbor_weight_fts": 0.3, "neighbor_span": 2, "day_boost": 1.0}',2.96872850000227117561e+01,'2026-12-01 04:09:24.123847');
CREATE TABLE retrievalhit (
	id INTEGER NOT NULL, 
	retrieval_id INTEGER NOT NULL, 
	memory_id VARCHAR(32) NOT NULL, 
	rank INTEGER NOT NULL, 
	similarity FLOAT, 
	fts_score FLOAT, 
	fused_score FLOAT NOT NULL, 
	passed BOOLEAN NOT NULL, 
	selected BOOLEAN NOT NULL, 
	injected BOOLEAN NOT NULL, 
	drop_reason VARCHAR, 
	PRIMARY KEY (id), 
	FOREIGN KEY(retrieval_id) REFERENCES retrieval (id)
);
INSERT INTO "retrievalhit" VALUES(1,2,'1a6f2556eaf144f2bf79171f0d359ab8',1,0.707044,NULL,0.0,0,0,0,'below threshold');
INSERT INTO "retrievalhit" VALUES(2,3,'1a6f2556eaf144f2bf79171f0d359ab8',1,0.687371,0.94566,2.427006,0,0,0,'below threshold');
INSERT INTO "retrievalhit" VALUES(3,3,'ce36af939efa4cabb9ecbe8bdf409e47',2,0.584643,NULL,0.070591,0,0,0,'below threshold');
INSERT INTO "retrievalhit" VALUES(4,3,'e5c3e4b5fb07411daa0e4492c12e88e4',3,0.397072,NULL,-0.397597,0,0,0,'below threshold');
INSERT INTO "retrievalhit" VALUES(5,5,'ce36af939efa4cabb9ecbe8bdf409e47',1,0.61103,NULL,0.256934,0,0,0,'below threshold');
INSERT INTO "retrievalhit" VALUES(6,5,'1a6f2556eaf144f2bf79171f0d359ab8',2,0.583557,NULL,0.163918,0,0,0,'below threshold');
INSERT INTO "retrievalhit" VALUES(7,5,'e5c3e4b5fb07411daa0e4492c12e88e4',3,0.410843,NULL,-0.420852,0,0,0,'below threshold');
CREATE TABLE schemamigration (
	version INTEGER NOT NULL, 
	name VARCHAR NOT NULL, 
	applied_at DATETIME NOT NULL, 
	PRIMARY KEY (version)
);
INSERT INTO "schemamigration" VALUES(1,'initial schema','2026-12-01 04:08:53.956930');
CREATE TABLE session (
	id VARCHAR(32) NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	agent_id VARCHAR(64) NOT NULL, 
	external_id TEXT NOT NULL, 
	external_hash VARCHAR(64) NOT NULL, 
	title VARCHAR, 
	status VARCHAR NOT NULL, 
	started_at DATETIME NOT NULL, 
	last_activity_at DATETIME NOT NULL, 
	ended_at DATETIME, 
	PRIMARY KEY (id), 
	UNIQUE (user_key, agent_id, external_hash), 
	FOREIGN KEY(user_key) REFERENCES user ("key")
);
INSERT INTO "session" VALUES('678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc','default','trip','34a389d790fc2bdd8458e5f1cde6933c97d11eeda65cf328b64460f0d68f04b5',NULL,'ended','2026-12-01 04:08:53.985189','2026-12-01 04:09:08.279165','2026-12-01 04:09:19.071654');
INSERT INTO "session" VALUES('59164ff5530b4c2797447ce389ddd849','f92e5175c79642d3bd6fb1c882e0cad1','default','s1','e8bc163c82eee18733288c7d4ac636db3a6deb013ef2d37b68322be20edc45cc',NULL,'active','2026-12-01 04:09:13.727664','2026-12-01 04:09:14.203889',NULL);
INSERT INTO "session" VALUES('7f220cc8a01d40bdbb09c9bffd30d1a4','363fb3f4f03046d5be4229d2bde05fdc','default','next','c6c1c9a9c8543f1e4cd980064cf1625eeb61a90703b2464fff039f21682508b3',NULL,'active','2026-12-01 04:09:23.718951','2026-12-01 04:09:24.136068',NULL);
INSERT INTO "session" VALUES('98e4f568f10c48fc912cc8992f7cce98','8d9ca12a6c794c54b4f7fa9668fc9195','default','cli','99bb88401742848e032fd6f51709415fb6be169a72d2e5d7fc44289255160d3c',NULL,'active','2026-12-01 04:09:27.231891','2026-12-01 04:09:27.520870',NULL);
CREATE TABLE sessionbridge (
	id INTEGER NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	agent_id VARCHAR(64) NOT NULL, 
	from_session_id VARCHAR(32) NOT NULL, 
	to_session_id VARCHAR(32), 
	text TEXT NOT NULL, 
	tokens INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	injected_at DATETIME, 
	PRIMARY KEY (id)
);
INSERT INTO "sessionbridge" VALUES(1,'363fb3f4f03046d5be4229d2bde05fdc','default','678c0f946eb44a48aafb2eddc6e2d0e5','7f220cc8a01d40bdbb09c9bffd30d1a4','Last time you told me: I moved to Shanghai last month. Key points: My name is Alice and I don''t eat spicy food. Your last message was: "I actually moved to Hangzhou now"',41,'2026-12-01 04:09:19.431297','2026-12-01 04:09:23.737870');
CREATE TABLE setting (
	"key" VARCHAR(64) NOT NULL, 
	value JSON, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY ("key")
);
INSERT INTO "setting" VALUES('similarity_threshold',0.82,'2026-12-01 04:09:37.605839');
INSERT INTO "setting" VALUES('top_k',4,'2026-12-01 04:09:37.607367');
CREATE TABLE summaryanchor (
	id INTEGER NOT NULL, 
	session_id VARCHAR(32) NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	from_message_id INTEGER NOT NULL, 
	to_message_id INTEGER NOT NULL, 
	text TEXT NOT NULL, 
	tokens INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(session_id) REFERENCES session (id)
);
INSERT INTO "summaryanchor" VALUES(1,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc',1,2,'Points: I moved to Shanghai last month',8,'2026-12-01 04:09:02.781327');
INSERT INTO "summaryanchor" VALUES(2,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc',3,4,'Points: My name is Alice and I don''t eat spicy food',12,'2026-12-01 04:09:08.308204');
CREATE TABLE turn (
	id INTEGER NOT NULL, 
	session_id VARCHAR(32) NOT NULL, 
	user_key VARCHAR(32) NOT NULL, 
	user_message_id INTEGER, 
	reply_message_id INTEGER, 
	model VARCHAR NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "turn" VALUES(1,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc',1,2,'offline','2026-12-01 04:08:54.697922');
INSERT INTO "turn" VALUES(2,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc',3,4,'offline','2026-12-01 04:09:02.612831');
INSERT INTO "turn" VALUES(3,'678c0f946eb44a48aafb2eddc6e2d0e5','363fb3f4f03046d5be4229d2bde05fdc',5,6,'offline','2026-12-01 04:09:08.147747');
INSERT INTO "turn" VALUES(4,'59164ff5530b4c2797447ce389ddd849','f92e5175c79642d3bd6fb1c882e0cad1',7,8,'offline','2026-12-01 04:09:14.085403');
INSERT INTO "turn" VALUES(5,'7f220cc8a01d40bdbb09c9bffd30d1a4','363fb3f4f03046d5be4229d2bde05fdc',9,10,'offline','2026-12-01 04:09:24.014209');
CREATE TABLE user (
	"key" VARCHAR(32) NOT NULL, 
	external_id TEXT NOT NULL, 
	external_hash VARCHAR(64) NOT NULL, 
	display_name VARCHAR, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY ("key"), 
	UNIQUE (external_hash)
);
INSERT INTO "user" VALUES('363fb3f4f03046d5be4229d2bde05fdc','alice','2bd806c97f0e00af1a1fc3328fa763a9269723c8db8fac4f93af71db186d6e90',NULL,'2026-12-01 04:08:53.979287');
INSERT INTO "user" VALUES('f92e5175c79642d3bd6fb1c882e0cad1','王芳','8ac9540bf3a5f9df02ba749a8522a9a70bf6d02696deb8564adffc0569a17126',NULL,'2026-12-01 04:09:13.722100');
INSERT INTO "user" VALUES('8d9ca12a6c794c54b4f7fa9668fc9195','bob@example.com','5ff860bf1190596c7188ab851db691f0f3169c453936e9e1eba2f9a47f7a0018',NULL,'2026-12-01 04:09:27.227127');
CREATE INDEX ix_sessionbridge_to_session_id ON sessionbridge (to_session_id);
CREATE INDEX ix_sessionbridge_from_session_id ON sessionbridge (from_session_id);
CREATE INDEX ix_sessionbridge_user_key ON sessionbridge (user_key);
CREATE INDEX ix_memoryevent_created_at ON memoryevent (created_at);
CREATE INDEX ix_memoryevent_memory_id ON memoryevent (memory_id);
CREATE INDEX ix_memoryevent_user_key ON memoryevent (user_key);
CREATE INDEX ix_memoryevent_message_id ON memoryevent (message_id);
CREATE INDEX ix_turn_user_key ON turn (user_key);
CREATE INDEX ix_turn_session_id ON turn (session_id);
CREATE INDEX ix_retrieval_user_key ON retrieval (user_key);
CREATE INDEX ix_retrieval_created_at ON retrieval (created_at);
CREATE INDEX ix_retrieval_turn_id ON retrieval (turn_id);
CREATE INDEX ix_contextsnapshot_turn_id ON contextsnapshot (turn_id);
CREATE INDEX ix_contextsnapshot_session_id ON contextsnapshot (session_id);
CREATE INDEX ix_contextsnapshot_user_key ON contextsnapshot (user_key);
CREATE INDEX ix_hitlabel_user_key ON hitlabel (user_key);
CREATE INDEX ix_hitlabel_retrieval_id ON hitlabel (retrieval_id);
CREATE INDEX ix_profilefield_user_key ON profilefield (user_key);
CREATE INDEX ix_profilechange_user_key ON profilechange (user_key);
CREATE INDEX ix_session_user_key ON session (user_key);
CREATE INDEX ix_memory_user_agent_status ON memory (user_key, agent_id, status);
CREATE INDEX ix_memory_indexed ON memory ("indexed");
CREATE INDEX ix_memory_user_created ON memory (user_key, created_at);
CREATE INDEX ix_retrievalhit_retrieval_id ON retrievalhit (retrieval_id);
CREATE INDEX ix_retrievalhit_memory_id ON retrievalhit (memory_id);
CREATE INDEX ix_contextsection_snapshot_id ON contextsection (snapshot_id);
CREATE INDEX ix_message_session_id_id ON message (session_id, id);
CREATE INDEX ix_message_user_key ON message (user_key);
CREATE INDEX ix_summaryanchor_session_id ON summaryanchor (session_id);
CREATE INDEX ix_summaryanchor_user_key ON summaryanchor (user_key);
COMMIT;
