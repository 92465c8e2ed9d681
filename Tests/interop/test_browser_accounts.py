"""People create and recover their own accounts in a real headless Chromium at phone size, with
the codes read from mail delivered through a real SMTP server (aiosmtpd): signup → code → verified
→ signed in; forgot password → code → new password → signed in, old refresh tokens dead;
passwordless code sign-in. Every page is kept as a screenshot, light and dark, in English and
Japanese (artifacts/accounts/)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import requests
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

import harness
from flows import authorize_params, query, unique_email
from harness import ARTIFACTS, CallbackServer
from smtp_inbox import Mailbox, code_in
from test_browser_login import chromium, type_like_a_person

PASSWORDLESS = "http://auth0.com/oauth/grant-type/passwordless/otp"
SHOTS = ARTIFACTS / "accounts"


@pytest.fixture
def mailbox():
    with Mailbox() as box:
        yield box


@pytest.fixture
def deployment(request, bin_dir, tmp_path, mailbox):
    idp = harness.start_tcp_idp(bin_dir, tmp_path, IDP_SMTP_URL=mailbox.url, IDP_EMAIL_FROM="Gatehouse <no-reply@example.com>")
    harness.wait_http_ok(idp.url("healthz"))
    deployment = harness.Deployment(idp=idp, admin=harness.Admin(bin_dir, idp))
    try:
        yield deployment
    finally:
        status = deployment.stop()
        if getattr(getattr(request.node, "report_call", None), "failed", False):
            print(deployment.diagnostics())
    assert status == 0


def make_app(deployment, callback: CallbackServer) -> dict:
    app = deployment.admin.create_app("Notes", "native", [callback.url],
                                      grants=["authorization_code", "refresh_token", PASSWORDLESS])
    deployment.admin("apps", "update", app["client_id"], "--signup", "on", "--require-email-verification", "on")
    return app


def shoot(driver, name: str) -> None:
    """The page as it is now, light and dark, at 390 x 844; it must not scroll sideways."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert driver.execute_script("return document.documentElement.scrollWidth") <= 390, f"{name} scrolls sideways"
    for scheme in ("light", "dark"):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        path = SHOTS / f"{name}-{scheme}.png"
        assert driver.save_screenshot(str(path)) and path.stat().st_size > 10_000, path
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def field(driver, name: str):
    return WebDriverWait(driver, 15).until(expected_conditions.element_to_be_clickable(
        (By.CSS_SELECTOR, f"form.login-form input[name={name}]")))


def replaced(page):
    """A wait condition: `page` (an element of the old document) is gone. Chromium reports a node
    released with its document either as a stale element or, while the next page is loading, as
    the inspector error "Node with given id does not belong to the document": both mean gone."""
    def check(_driver) -> bool:
        try:
            page.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            if "does not belong to the document" in (error.msg or ""):
                return True
            raise
    return check


def press(driver, action: str) -> None:
    """Clicks the button and waits for the next page to replace this one."""
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.CSS_SELECTOR, f"button[name=action][value={action}]").click()
    WebDriverWait(driver, 15).until(replaced(page))


def open_authorize(driver, deployment, app, callback, **extra) -> tuple[dict, str]:
    params, verifier = authorize_params(app["client_id"], callback.url)
    params["scope"] = "openid profile email offline_access"
    params.update(extra)
    driver.get(requests.Request("GET", deployment.url("authorize"), params=params).prepare().url)
    return params, verifier


def landed(driver, callback: CallbackServer, params: dict) -> str:
    WebDriverWait(driver, 20).until(lambda d: d.current_url.startswith(callback.url))
    values = query(driver.current_url)
    assert values.get("state") == params["state"] and values.get("code"), driver.current_url
    return values["code"]


def redeem(deployment, app, callback, code: str, verifier: str) -> dict:
    response = deployment.post("oauth/token", json={"grant_type": "authorization_code", "client_id": app["client_id"], "code": code,
                                                    "code_verifier": verifier, "redirect_uri": callback.url})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.signin
def test_signup_verify_reset_and_passwordless_in_a_phone_browser(deployment, mailbox, tmp_path):
    driver = chromium(tmp_path)
    email = unique_email("signup")
    try:
        with CallbackServer() as callback:
            app = make_app(deployment, callback)

            # Sign up: the form, a weak password refused next to its field, then the code by email.
            params, verifier = open_authorize(driver, deployment, app, callback)
            field(driver, "email")
            shoot(driver, "login-en")
            press(driver, "show_signup")
            type_like_a_person(field(driver, "email"), email)
            type_like_a_person(field(driver, "password"), "weak")
            shoot(driver, "signup-en")
            press(driver, "signup")
            error = WebDriverWait(driver, 10).until(expected_conditions.presence_of_element_located((By.ID, "password-error")))
            assert "8 characters" in error.text
            assert driver.switch_to.active_element.get_attribute("name") == "password"
            shoot(driver, "signup-weak-password-en")
            type_like_a_person(field(driver, "password"), "Tr0ubadour-horse")
            press(driver, "signup")
            code_input = field(driver, "code")
            assert code_input.get_attribute("autocomplete") == "one-time-code"
            assert code_input.get_attribute("inputmode") == "numeric"
            shoot(driver, "verify-email-en")
            message = mailbox.wait_for(email)
            assert "Notes" in str(message["Subject"]) or "Notes" in message.get_body(preferencelist=("plain",)).get_content()
            type_like_a_person(field(driver, "code"), code_in(message))
            press(driver, "verify_email")
            tokens = redeem(deployment, app, callback, landed(driver, callback, params), verifier)
            old_refresh = tokens["refresh_token"]

            # Forgot password, in a fresh browser: code on the page, new password, signed in.
            driver.delete_all_cookies()
            params, verifier = open_authorize(driver, deployment, app, callback)
            field(driver, "email")
            press(driver, "show_forgot")
            type_like_a_person(field(driver, "email"), email)
            shoot(driver, "forgot-password-en")
            press(driver, "reset_request")
            code_input = field(driver, "code")
            shoot(driver, "reset-password-en")
            type_like_a_person(field(driver, "code"), code_in(mailbox.wait_for(email, count=2)))
            type_like_a_person(field(driver, "password"), "N3w-Tr0ubadour!")
            press(driver, "reset_password")
            redeem(deployment, app, callback, landed(driver, callback, params), verifier)
            dead = deployment.post("oauth/token", json={"grant_type": "refresh_token", "client_id": app["client_id"],
                                                        "refresh_token": old_refresh})
            assert dead.status_code == 400 and dead.json()["error"] == "invalid_grant", dead.text

            # Passwordless, in Japanese.
            driver.delete_all_cookies()
            params, verifier = open_authorize(driver, deployment, app, callback, ui_locales="ja")
            field(driver, "email")
            assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ja"
            shoot(driver, "login-ja")
            press(driver, "show_passwordless")
            type_like_a_person(field(driver, "email"), email)
            shoot(driver, "passwordless-ja")
            press(driver, "passwordless_start")
            code_input = field(driver, "code")
            shoot(driver, "passwordless-code-ja")
            type_like_a_person(field(driver, "code"), code_in(mailbox.wait_for(email, count=3)))
            press(driver, "passwordless_verify")
            redeem(deployment, app, callback, landed(driver, callback, params), verifier)

            # The signup page in Japanese, for the record.
            driver.delete_all_cookies()
            open_authorize(driver, deployment, app, callback, ui_locales="ja", screen_hint="signup")
            field(driver, "password")
            shoot(driver, "signup-ja")
    except WebDriverException as failure:
        raise AssertionError(f"browser failed: {failure.msg}\n{deployment.diagnostics()}") from failure
    finally:
        driver.quit()


def test_a_mail_outage_loses_nothing_across_a_restart(bin_dir, tmp_path):
    """The SMTP server is down while three people ask for codes; idp restarts; the server comes
    back; all three messages arrive."""
    port = harness.free_port()
    env = {"IDP_SMTP_URL": f"smtp://127.0.0.1:{port}", "IDP_EMAIL_FROM": "no-reply@example.com"}
    idp = harness.start_tcp_idp(bin_dir, tmp_path, **env)
    harness.wait_http_ok(idp.url("healthz"))
    admin = harness.Admin(bin_dir, idp)
    app = admin.create_app("Codes", "native", ["com.example.codes://cb"], grants=["authorization_code", PASSWORDLESS])
    people = [unique_email(f"outage{index}") for index in range(3)]
    for person in people:
        admin.create_user(person, "Tr0ubadour-horse")
        response = requests.post(idp.url("passwordless/start"), timeout=10,
                                 json={"email": person, "connection": "email", "send": "code", "client_id": app["client_id"]})
        assert response.status_code == 200, response.text
    time.sleep(1)
    assert idp.stop() == 0
    restarted = harness.Idp(bin_dir, idp.workdir, issuer=idp.issuer, listen=idp.listen, extra_env=env).start()
    try:
        harness.wait_http_ok(restarted.url("healthz"))
        with Mailbox(port) as mailbox:
            for person in people:
                message = mailbox.wait_for(person, timeout=90)
                code = code_in(message)
                tokens = requests.post(restarted.url("oauth/token"), timeout=10, json={
                    "grant_type": PASSWORDLESS, "realm": "email", "username": person, "otp": code, "client_id": app["client_id"],
                    "scope": "openid"})
                assert tokens.status_code == 200, tokens.text
    finally:
        assert restarted.stop() == 0


@pytest.mark.signin
def test_the_emailed_links_work_in_another_browser(deployment, mailbox, tmp_path):
    """A reset started by the SDK (no page yet) is finished from the email's link in a browser that
    never saw the sign-in: no cookie needed, once."""
    driver = chromium(tmp_path)
    email = unique_email("link")
    try:
        with CallbackServer() as callback:
            app = make_app(deployment, callback)
            deployment.admin.create_user(email, "Tr0ubadour-horse")
            sent = deployment.post("dbconnections/change_password",
                                   json={"email": email, "connection": "Username-Password-Authentication", "client_id": app["client_id"]})
            assert sent.status_code == 200, sent.text
            text = mailbox.wait_for(email).get_body(preferencelist=("plain",)).get_content()
            link = next(word for word in text.split() if "reset-password?ticket=" in word)
            driver.get(link)
            password = WebDriverWait(driver, 15).until(expected_conditions.element_to_be_clickable((By.ID, "password")))
            shoot(driver, "reset-link-en")
            type_like_a_person(password, "Link-Reset-2026")
            page = driver.find_element(By.TAG_NAME, "html")
            driver.find_element(By.CSS_SELECTOR, "button.button.primary").click()
            WebDriverWait(driver, 15).until(replaced(page))
            assert "Password changed" in driver.find_element(By.TAG_NAME, "h1").text
            shoot(driver, "reset-link-done-en")
            driver.get(link)
            assert "expired" in driver.find_element(By.TAG_NAME, "h1").text
            shoot(driver, "link-expired-en")
            # The new password signs in on the ordinary login page.
            params, _ = open_authorize(driver, deployment, app, callback)
            type_like_a_person(field(driver, "email"), email)
            type_like_a_person(field(driver, "password"), "Link-Reset-2026")
            press(driver, "login")
            landed(driver, callback, params)
    except WebDriverException as failure:
        raise AssertionError(f"browser failed: {failure.msg}\n{deployment.diagnostics()}") from failure
    finally:
        driver.quit()
