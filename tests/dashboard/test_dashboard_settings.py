"""Settings: the providers in use, the thresholds in force, and the cost meter."""

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from memories.models import ModelCall

pytestmark = pytest.mark.django_db

SETTINGS = "/settings/"


def chart_data(page: str, element_id: str) -> dict:
    start = page.index(f'<script id="{element_id}" type="application/json">')
    body = page[page.index(">", start) + 1:page.index("</script>", start)]
    return json.loads(body)


def test_it_is_routed_under_its_name():
    assert reverse("settings_page") == SETTINGS


def test_it_names_the_embedding_and_language_model_providers(signed_in):
    page = signed_in.get(SETTINGS).content.decode()
    assert "all-MiniLM-L6-v2" in page and "384" in page
    assert "Language model" in page and "rules" in page


def test_it_shows_the_thresholds_in_force(signed_in, settings):
    settings.ENGRAM_DEDUP_THRESHOLD = 0.87
    settings.ENGRAM_LLM_DAILY_TOKENS = 12345
    page = signed_in.get(SETTINGS).content.decode()
    for name in ("ENGRAM_DEDUP_THRESHOLD", "ENGRAM_FUSION", "ENGRAM_RANK_WEIGHTS",
                 "ENGRAM_CONTEXT_MIN_SCORE", "ENGRAM_CAPTURE_MAX_CHARS",
                 "ENGRAM_LLM_BREAKER_FAILURES", "ENGRAM_LLM_DAILY_TOKENS"):
        assert name in page
    assert "<td>0.87</td>" in page and "<td>12345</td>" in page
    assert "recency 0.25, importance 0.25, relevance 1" in page


def test_the_feedback_interval_is_said_to_be_each_persons(signed_in):
    # Since ratings are counted per person (given_by), not per agent id alone.
    page = signed_in.get(SETTINGS).content.decode()
    assert "helpful / harmful votes of one person&#x27;s agent on one memory" in page


def test_the_cost_meter_adds_up_ones_own_calls_per_day(signed_in, alice, bob):
    now = timezone.now()
    ModelCall.objects.create(owner=alice, provider="anthropic", model="claude-haiku-4-5",
                             purpose="gate", input_tokens=1000, output_tokens=50,
                             cost_usd=Decimal("0.0012"), created_at=now)
    ModelCall.objects.create(owner=alice, provider="anthropic", model="claude-sonnet-4-5",
                             purpose="extract", input_tokens=2000, output_tokens=500,
                             cost_usd=Decimal("0.0135"), created_at=now - timedelta(days=3))
    ModelCall.objects.create(owner=alice, provider="anthropic", purpose="extract",
                             input_tokens=99999, created_at=now - timedelta(days=45))
    ModelCall.objects.create(owner=bob, provider="openai", purpose="gate",
                             input_tokens=777777, cost_usd=Decimal(9), created_at=now)
    page = signed_in.get(SETTINGS).content.decode()
    assert "2 model calls" in page and "3000 tokens in, 550 out" in page
    assert "$0.0147" in page and "777777" not in page
    chart = chart_data(page, "cost-charts")["per_day"]
    assert len(chart["labels"]) == 30 and chart["labels"][-1] == timezone.localdate().isoformat()
    assert chart["series"][0]["values"][-1] == 1050 and chart["series"][0]["values"][-4] == 2500
    assert "claude-sonnet-4-5" in page and "extract" in page


def test_the_page_uses_no_cdn(signed_in):
    page = signed_in.get(SETTINGS).content.decode()
    assert "/static/vendor/chartjs-4.5.1/chart.umd.min.js" in page
    assert "cdn" not in page.lower() and "https://" not in page


def test_the_page_queries_a_fixed_number_of_times(signed_in, alice,
                                                  django_assert_max_num_queries):
    ModelCall.objects.bulk_create(ModelCall(owner=alice, provider="anthropic", purpose="gate",
                                            input_tokens=n) for n in range(50))
    with django_assert_max_num_queries(8):
        assert signed_in.get(SETTINGS).status_code == 200
