"""Retrieval evaluation: LoCoMo turn-level recall and a paraphrase set, with baselines.

Pure parts (metrics, BM25, dataset parsing) need no database; `runner` loads memories
through `services.remember_many` and asks through `services.recall`, like the API does.
"""
