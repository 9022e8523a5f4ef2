from django.core.management import call_command


def test_the_openapi_schema_validates_without_warnings(db, tmp_path):
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    assert "/api/v1/memories/{memory_id}/feedback:" in text
    assert "/api/v1/import:" in text and "/api/v1/export:" in text
    assert "/api/v1/memories/{memory_id}/erase:" in text and "ErasureOutput" in text
    assert "bearer" in text


def test_the_docs_page_is_served_without_any_cdn(client, db):
    page = client.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in page
    assert "cdn" not in page.lower() and "unpkg" not in page
    assert client.get("/api/schema/").status_code == 200
