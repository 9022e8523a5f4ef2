"""Capture: what agents observe becomes memories, with nobody having to ask.

- observe: an observation is scrubbed (secrets, private sections, size) and stored first
- chunking: the stored observation is cut into overlapping chunks
- extraction: each chunk is gated, then extracted by the model (or the rules) into memories
- entities: the entities and relationships an extracted memory names
"""



