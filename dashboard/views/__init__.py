"""One module per screen; each view declares its methods and answers an htmx request with a
named partial of the screen's template."""
