"""The customer chat page: served at / without login, wired to its static assets."""

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

STATIC_DIR = Path(__file__).resolve().parent.parent / "static" / "web"


def test_chat_page_loads_without_login_and_references_assets(client):
    response = client.get("/")

    assert response.status_code == 200
    html = response.content.decode("utf-8")
    assert "<title>고객센터 AI 상담</title>" in html
    assert 'name="viewport"' in html
    assert "web/chat.js" in html
    assert "web/chat.css" in html


def test_chat_page_has_labelled_login_and_message_fields(client):
    html = client.get("/").content.decode("utf-8")

    assert "아이디" in html and "비밀번호" in html
    assert 'maxlength="4000"' in html
    assert '<label class="visually-hidden" for="message-input">메시지</label>' in html


@pytest.mark.parametrize("name", ["chat.js", "chat.css"])
def test_static_asset_exists_and_is_found_by_staticfiles(name):
    path = STATIC_DIR / name
    assert path.is_file() and path.stat().st_size > 0
    assert finders.find(f"web/{name}") == str(path)


def test_script_never_writes_server_text_as_html():
    source = (STATIC_DIR / "chat.js").read_text(encoding="utf-8")
    assert "innerHTML" not in source
    assert "insertAdjacentHTML" not in source
