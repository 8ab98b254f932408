"""Writes of the palace, by stage:

- `intake`: conversations and turns in (durable before the response), each with its mining request;
  the memory-off check.
- `jobs`: the mining jobs — claiming and running them, and the outbox that sends what the broker missed.
- `mining`: a conversation's turns filed as drawers in rooms, closets and wings with their AAAK
  pointers, and the knowledge graph they show.
- `exclusions`: exclusion rules (text never to be mined): create, delete, preview and purge their
  matches (purging forgets them, with a receipt); the matching itself is palace/exclusions.py, applied by
  `mining` before extraction.
- `forget` (+ `forget_redis`): erasure with a receipt — a drawer, conversation, wing, entity, typed memory,
  episode or everything, and the receipt's re-check.
- `graph`: the temporal knowledge graph's relations (from mining and from the API), with their windows.
- `remine`: an existing palace filed again with the current extractor (`manage.py remine`), drawers
  and their pointers kept.
"""
