from django.urls import path

from . import views

urlpatterns = [
    path("reflection/", views.insights, name="reflection"),
    path("reflection/reflect", views.reflect_now, name="reflect_now"),
    path("reflection/<uuid:insight_id>/review", views.review, name="insight_review"),
]
