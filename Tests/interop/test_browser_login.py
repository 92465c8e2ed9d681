"""A real headless Chromium signs in like a person, at phone size, and lands on a loopback callback."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
import requests
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from flows import PASSWORD, authorize_params, query, unique_email
from harness import ARTIFACTS, CallbackServer

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def chromium(tmp_path: Path, javascript: bool = True) -> webdriver.Chrome:
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail("chromium and chromium-driver are needed: run scripts/install-deps --test")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--window-size=390,844", "--disable-dev-shm-usage",
                     "--disable-gpu", "--no-first-run", "--disable-extensions", "--ignore-certificate-errors",
                     f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(argument)
    # Desktop Chromium will not make a window narrower than 500 px: emulate the phone's viewport
    # (390 x 844 CSS px at 3x, an iPhone 14) so the page lays out as on a phone.
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": 390, "height": 844,
                                                                          "pixelRatio": 3.0}})
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    # The system chromedriver: selenium-manager never downloads anything.
    service = Service(executable_path=CHROMEDRIVER, log_output=str(tmp_path / "chromedriver.log"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(20)
    return driver


@pytest.fixture
def browser(tmp_path):
    driver = chromium(tmp_path)
    yield driver
    driver.quit()


def test_chromium_reaches_gatehouse_through_nginx(gatehouse_tls, browser):
    """Not sign-in yet: proves the browser plumbing (Chromium, driver, TLS front) works today."""
    browser.get(gatehouse_tls.url(".well-known/openid-configuration"))
    text = browser.find_element(By.TAG_NAME, "body").text
    assert gatehouse_tls.issuer + "authorize" in text, text[:500]


def type_like_a_person(element, text: str, click: bool = True) -> None:
    if click:
        element.click()
    for character in text:
        element.send_keys(character)
        time.sleep(0.005)


@pytest.mark.signin
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_browser_signs_in_at_phone_size(gatehouse, tmp_path, javascript):
    driver = chromium(tmp_path, javascript=javascript)
    try:
        with CallbackServer() as callback:
            app = gatehouse.admin.create_app("Phone app", "native", [callback.url])
            user = gatehouse.admin.create_user(unique_email("phone"), PASSWORD, name="Ada Lovelace")
            params, _verifier = authorize_params(app["client_id"], callback.url)
            url = requests.Request("GET", gatehouse.url("authorize"), params=params).prepare().url

            driver.get(url)
            wait = WebDriverWait(driver, 15)
            email = wait.until(expected_conditions.element_to_be_clickable(
                (By.CSS_SELECTOR, "form.login-form input[name=email]")))
            assert driver.execute_script("return window.innerWidth") == 390
            assert driver.execute_script("return document.documentElement.scrollWidth") <= 390, \
                "the login page scrolls sideways at phone width"
            if javascript:
                ARTIFACTS.mkdir(exist_ok=True)
                screenshot = ARTIFACTS / "login-page.png"
                assert driver.save_screenshot(str(screenshot))
                assert screenshot.stat().st_size > 10_000, f"{screenshot} is only {screenshot.stat().st_size} bytes"

            # chromedriver's click() hangs when JavaScript is switched off by content settings, so the
            # no-JS person tabs through the fields and presses Enter: implicit submission uses the first
            # submit button in tree order, which must be the primary (login) one.
            type_like_a_person(email, user["email"], click=javascript)
            password = driver.find_element(By.CSS_SELECTOR, "form.login-form input[name=password]")
            type_like_a_person(password, PASSWORD, click=javascript)
            if javascript:
                driver.find_element(By.CSS_SELECTOR, "form.login-form button.button.primary").click()
            else:
                password.send_keys(Keys.ENTER)

            assert callback.arrived.wait(20), f"the callback was never reached; browser at {driver.current_url}"
            WebDriverWait(driver, 10).until(lambda d: d.current_url.startswith(callback.url))
            values = query(driver.current_url)
            assert values.get("code") and values.get("state") == params["state"], driver.current_url
            assert values.get("iss") == gatehouse.issuer, values
            assert callback.received[0].startswith("/callback?"), callback.received
    except WebDriverException as error:
        raise AssertionError(f"browser failed: {error.msg}\n{gatehouse.diagnostics()}") from None
    finally:
        driver.quit()
