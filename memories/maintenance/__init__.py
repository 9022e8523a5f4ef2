"""Maintenance: the passes that keep a store true and small, each idempotent (running it
again changes nothing) and restartable (a killed run leaves whole rows only).

- contradictions: judging new memories against their neighbours, and resolving what conflicts
- consolidation: merging duplicates, summarising clusters, compressing, linking
- forgetting: archiving what was superseded, soft-deleting what has faded, purging
"""



