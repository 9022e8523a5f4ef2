"""What the core announces, for the apps built on it to act on.

The core sends; it never imports who listens. Reflection connects its receivers in its
`AppConfig.ready()` (reflection/receivers.py), so memories never import reflection.
Receivers run in the sender's transaction: what they write commits or rolls back with it.
"""

from django.dispatch import Signal

# New memories were stored (not the ones that only strengthened an existing memory).
# Arguments: owner, memories (the new Memory rows).
memories_stored = Signal()

# The evidence under these memories changed: superseded, edited, deleted, forgotten or
# erased. Arguments: memory_ids, reason (words for a person), and from an erase seen_by
# (who erased). A receiver may answer with a dict such as {"insights_flagged": [ids]},
# which an erase lists in its receipt: only those seen_by reads.
evidence_changed = Signal()

# A deletion of these memories was undone. Arguments: memory_ids, and undone: the reason
# evidence_changed gave for the deletion, so a listener puts back only what it caused.
evidence_restored = Signal()

# An erase removed raw text an observation held (the prompts, replies and tool calls a
# memory was extracted from), or found its text quoted: whoever kept a copy of it must
# let it go. Sent while the observations are still stored. Arguments: owner_id;
# tool_events, {observation id: [indexes into its tool_events] whose text goes}; and
# scrub(rows, text=(...), json=(...)), which replaces in those columns of `rows` every
# quote of the erased text and of the raw messages removed, returning the ids changed.
# A receiver answers {"scrubbed": {table: ids}, "removed": {table: ids}}, which the
# erase's receipt lists.
source_erased = Signal()

# An agent handed over an observation (a new one, not a repeat).
# Arguments: owner, observation.
observation_received = Signal()



