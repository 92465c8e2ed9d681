"""Every end-user page in headless Chromium at phone size (390 x 844), in English and Japanese, light
and dark: `lang` set, no sideways scrolling, a long app name that wraps, WCAG AA contrast of the
primary button's text, and a screenshot of each in artifacts/pages/<page>-<lang>-<theme>.png.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from flows import PASSWORD, authorize_params, unique_email
from harness import ARTIFACTS, CallbackServer
from test_browser_login import chromium, type_like_a_person

pytestmark = pytest.mark.signin

LONG_NAME = "Metropolitan Library Reading Room Reservations for Members and Visiting Researchers"
PAGES_DIR = ARTIFACTS / "pages"


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A solid-colour PNG (the app's logo), made here so the test needs no image file."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


class LogoServer:
    def __init__(self) -> None:
        logo = png(112, 112, (0x1a, 0x73, 0x3c))

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(logo)))
                self.end_headers()
                self.wfile.write(logo)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/logo.png"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def luminance(rgb: list[float]) -> float:
    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(v) for v in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: list[float], b: list[float]) -> float:
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


COLOURS = """
const parse = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
const button = document.querySelector('.button.primary');
if (!button) { return null; }
const style = getComputedStyle(button);
return [parse(style.color), parse(style.backgroundColor)];
"""


def set_theme(driver, theme: str) -> None:
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": theme}]})


def check_and_capture(driver, name: str, language: str) -> None:
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
    assert driver.execute_script("return document.documentElement.lang") == language, (name, driver.current_url)
    assert driver.execute_script("return window.innerWidth") == 390
    for theme in ("light", "dark"):
        set_theme(driver, theme)
        width = driver.execute_script("return document.documentElement.scrollWidth")
        assert width <= 390, f"{name} ({language}, {theme}) scrolls sideways: {width}px"
        colours = driver.execute_script(COLOURS)
        if colours:
            ratio = contrast(colours[0], colours[1])
            assert ratio >= 4.5, f"{name} ({language}, {theme}): primary button text contrast {ratio:.2f}:1 {colours}"
        path = PAGES_DIR / f"{name}-{language}-{theme}.png"
        assert driver.save_screenshot(str(path)), path
        assert path.stat().st_size > 8_000, f"{path} is only {path.stat().st_size} bytes"
    set_theme(driver, "light")


def require_japanese_font() -> None:
    """Without one, Chromium draws Japanese as empty boxes and the screenshots prove nothing."""
    listed = subprocess.run(["fc-list", ":lang=ja"], capture_output=True, text=True).stdout if shutil.which("fc-list") else ""
    if not listed.strip():
        pytest.fail("no Japanese font (fc-list :lang=ja is empty): run scripts/install-deps --test")


def test_every_page_in_both_languages_and_themes_at_phone_size(gatehouse, tmp_path):
    require_japanese_font()
    PAGES_DIR.mkdir(parents=True, exist_ok=True)
    logo = LogoServer()
    receiver = CallbackServer().__enter__()
    callback = receiver.url
    app = gatehouse.admin.create_app(LONG_NAME, "native", [callback, "com.example.notes://127.0.0.1/ios/com.example.notes/callback"])
    gatehouse.admin("apps", "update", app["client_id"], "--bundle-id", "com.example.notes", "--logo-url", logo.url,
                    "--accent-color", "#ffd400")
    user = gatehouse.admin.create_user(unique_email("pages"), PASSWORD)
    driver = chromium(tmp_path)
    captured = []
    try:
        for language in ("en", "ja"):
            def authorize(**extra: str) -> str:
                params, _ = authorize_params(app["client_id"], callback, ui_locales=language, **extra)
                return requests.Request("GET", gatehouse.url("authorize"), params=params).prepare().url

            # The login page: the logo, the light accent (black text), the long name wrapping.
            driver.get(authorize())
            email = WebDriverWait(driver, 15).until(expected_conditions.element_to_be_clickable(
                (By.CSS_SELECTOR, "form.login-form input[name=email]")))
            assert driver.execute_script("return document.querySelector('img.logo').naturalWidth") == 112, "logo not loaded"
            lines = driver.execute_script(
                "const h = document.querySelector('.subtitle'); return h.getBoundingClientRect().height / "
                "parseFloat(getComputedStyle(h).lineHeight)")
            assert lines >= 2, f"the long app name does not wrap ({lines} lines)"
            check_and_capture(driver, "login", language)

            # After a wrong password: the error, the email kept, the password focused.
            type_like_a_person(email, user["email"])
            type_like_a_person(driver.find_element(By.CSS_SELECTOR, "input[name=password]"), "wrong password")
            driver.find_element(By.CSS_SELECTOR, "form.login-form button.button.primary").click()
            WebDriverWait(driver, 10).until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, ".field-error")))
            assert driver.execute_script("return document.activeElement.name") == "password"
            check_and_capture(driver, "login-error", language)
            # Then the right one: signed in (the logout question below needs a session).
            type_like_a_person(driver.find_element(By.CSS_SELECTOR, "input[name=password]"), PASSWORD, click=False)
            driver.find_element(By.CSS_SELECTOR, "form.login-form button.button.primary").click()
            WebDriverWait(driver, 15).until(lambda d: d.current_url.startswith(callback))

            # A refused callback: the user's message, the error code and the request id.
            params, _ = authorize_params(app["client_id"], callback + "/not-registered", ui_locales=language)
            driver.get(requests.Request("GET", gatehouse.url("authorize"), params=params).prepare().url)
            assert "callback_not_allowed" in driver.find_element(By.CSS_SELECTOR, "dl.reference").text
            check_and_capture(driver, "error-callback", language)

            # A form_post answer kept on screen: its script is paused.
            driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
            driver.get(authorize(prompt="none", response_mode="form_post"))
            check_and_capture(driver, "form-post", language)
            driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})

            # The logout question and the signed-out page.
            driver.get(gatehouse.url("oidc/logout") + "?" + urlencode({"client_id": app["client_id"], "ui_locales": language}))
            assert driver.find_elements(By.CSS_SELECTOR, "form.logout-form button")
            check_and_capture(driver, "logout-confirm", language)
            driver.get(gatehouse.url("v2/logout") + "?" + urlencode({"ui_locales": language}))
            check_and_capture(driver, "signed-out", language)

            # The universal-link callback the app did not intercept.
            driver.get(gatehouse.url("ios/com.example.notes/callback") + "?" + urlencode({"code": "x", "state": "y",
                                                                                          "ui_locales": language}))
            link = driver.find_element(By.CSS_SELECTOR, "a.button.primary").get_attribute("href")
            assert link.startswith("com.example.notes://127.0.0.1/ios/com.example.notes/callback?code=x&state=y"), link
            check_and_capture(driver, "app-return", language)
            captured.append(language)
    finally:
        driver.quit()
        logo.close()
        receiver.__exit__(None, None, None)
    assert captured == ["en", "ja"]
    assert len(list(PAGES_DIR.glob("*.png"))) >= 28


def test_the_web_message_page_on_its_own(gatehouse, tmp_path):
    """Opened without an opener or parent (a popup the app lost), the page just says it can be closed."""
    PAGES_DIR.mkdir(parents=True, exist_ok=True)
    origin = "http://127.0.0.1:9"
    app = gatehouse.admin.create_app("Board", "spa", [origin], web_origins=[origin])
    driver = chromium(tmp_path)
    try:
        for language in ("en", "ja"):
            params, _ = authorize_params(app["client_id"], origin, prompt="none", response_mode="web_message", ui_locales=language)
            driver.get(requests.Request("GET", gatehouse.url("authorize"), params=params).prepare().url)
            assert driver.find_element(By.ID, "authorization-response").get_attribute("data-target-origin") == origin
            check_and_capture(driver, "web-message", language)
    finally:
        driver.quit()


BUTTONS = """
const pick = (kind) => {
  const button = document.querySelector('button.connection.' + kind);
  if (!button) { return null; }
  const style = getComputedStyle(button);
  const box = button.getBoundingClientRect();
  return {text: button.innerText.trim(), color: style.color, background: style.backgroundColor, height: box.height,
          width: box.width, logo: !!button.querySelector('svg.logo-mark')};
};
return {apple: pick('apple'), google: pick('google')};
"""


def test_the_apple_and_google_buttons_at_phone_size(gatehouse, tmp_path):
    """The login page of an app with Apple and Google connections: Apple's button black with white text
    (white with black text in dark mode) and its logo, Google's white (dark grey in dark mode) with the G,
    wording from each brand's rules in English and Japanese, full width, 44 px or taller; pressing Apple's
    goes to Apple's authorization endpoint (here a loopback stand-in) with form_post."""
    require_japanese_font()
    PAGES_DIR.mkdir(parents=True, exist_ok=True)
    key = tmp_path / "AuthKey_TEST123456.p8"
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(key)], check=True)
    receiver = CallbackServer().__enter__()
    stand_in = f"http://127.0.0.1:{receiver.port}/auth/authorize"
    gatehouse.admin("connections", "create", "--name", "apple", "--strategy", "apple", "--client-id", "com.example.notes.web",
                    "--team-id", "TEAM123456", "--key-id", "TEST123456", "--private-key-file", str(key), "--authorize-url", stand_in)
    gatehouse.admin("connections", "create", "--name", "google", "--strategy", "google", "--client-id", "1234-web.apps.example",
                    "--client-secret-stdin", input="google-secret\n")
    callback = receiver.url
    app = gatehouse.admin.create_app("Notes", "native", [callback])
    gatehouse.admin("apps", "update", app["client_id"], "--connections", "apple,google")
    expected = {"en": ("Sign in with Apple", "Continue with Google"), "ja": ("Appleでサインイン", "Googleで続ける")}
    colours = {"light": ("rgb(0, 0, 0)", "rgb(255, 255, 255)"), "dark": ("rgb(255, 255, 255)", "rgb(19, 19, 20)")}
    driver = chromium(tmp_path)
    try:
        for language in ("en", "ja"):
            params, _ = authorize_params(app["client_id"], callback, ui_locales=language)
            driver.get(requests.Request("GET", gatehouse.url("authorize"), params=params).prepare().url)
            WebDriverWait(driver, 15).until(expected_conditions.element_to_be_clickable((By.CSS_SELECTOR, "button.connection.apple")))
            for theme in ("light", "dark"):
                set_theme(driver, theme)
                found = driver.execute_script(BUTTONS)
                apple, google = found["apple"], found["google"]
                assert (apple["text"], google["text"]) == expected[language], found
                assert apple["logo"] and google["logo"], found
                assert apple["background"] == colours[theme][0] and google["background"] == colours[theme][1], (theme, found)
                for button in (apple, google):
                    assert button["height"] >= 44 and button["width"] >= 300, (theme, found)
                    ratio = contrast([float(v) for v in button["color"][4:-1].split(",")],
                                     [float(v) for v in button["background"][4:-1].split(",")])
                    assert ratio >= 4.5, (theme, button, ratio)
            set_theme(driver, "light")
            check_and_capture(driver, "login-connections", language)
        driver.find_element(By.CSS_SELECTOR, "button.connection.apple").click()
        WebDriverWait(driver, 15).until(lambda d: d.current_url.startswith(stand_in))
        query = dict(part.split("=", 1) for part in driver.current_url.split("?", 1)[1].split("&"))
        assert query["client_id"] == "com.example.notes.web" and query["response_mode"] == "form_post", query
        assert query["code_challenge_method"] == "S256" and query["state"] and query["nonce"], query
    finally:
        driver.quit()
        receiver.__exit__(None, None, None)
