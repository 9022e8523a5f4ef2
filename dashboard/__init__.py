"""The dashboard: the HTML screens people use to see and correct what Engram remembers.

No models of its own: views by screen (views/), their forms, the read helpers the screens
need beyond memories.selectors (queries.py, stats.py, text.py), and one urls.py.
"""
