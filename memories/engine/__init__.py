"""Engram's pure engine: plain functions with no Django, no I/O and `now` passed in.

Scoring, decay, fusion, dedup decisions, token budgets, chunking and parsing live here
so that they can be tested exactly, without a database.
"""
