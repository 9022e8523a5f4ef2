"""`entries`: a mapping's (key, value) pairs for a template's for loop.

`{% for k, v in d.items %}` looks up the key "items" before the method, so a mapping whose
keys anyone may choose (a memory's metadata, the tools an agent named) broke its page with
a 500 once one of them was "items".

`as_json`: a stored JSON value shown as JSON, indented; Python's repr (`pprint`) quoted it
as Python and cut long strings into pieces."""

import json

from django import template

register = template.Library()


@register.filter
def entries(mapping) -> list:
    return list(mapping.items()) if isinstance(mapping, dict) else []


@register.filter
def as_json(value) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)
