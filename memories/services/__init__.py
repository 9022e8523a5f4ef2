"""Writes, one topic a module; the reads are in memories.selectors.

- remembering: validation, dedup against what is stored, session links (remember, remember_many)
- recall: hybrid retrieval and recording what was retrieved
- context: the token-budgeted, fenced context handed to an agent
- editing: update, delete, restore, feedback, bulk changes and their undo
- embeddings: embedding what was deferred, re-embedding with another model
- api_keys: creating and revoking keys
- transfer: import and export as JSONL
- validation: the field checks remembering and editing share
"""



