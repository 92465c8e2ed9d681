/// `assets/gatehouse.css`: system fonts, one centred card, 44 px touch targets, light and dark schemes.
enum Stylesheet {
    static let text = """
    :root {
      color-scheme: light dark;
      --bg: #f4f5f7;
      --card: #ffffff;
      --text: #1c1e21;
      --muted: #5f6368;
      --border: #c9ccd1;
      --accent: #0b57d0;
      --accent-text: #ffffff;
      --error-bg: #fdecea;
      --error-text: #a50e0e;
      --focus: #0b57d0;
      --notice-bg: #e8f0fe;
      --link: #0b57d0;
    }
    @media (prefers-color-scheme: dark) {
      :root {
        --bg: #111315;
        --card: #1c1f23;
        --text: #e8eaed;
        --muted: #a8adb4;
        --border: #3c4046;
        --accent: #8ab4f8;
        --accent-text: #0b1a33;
        --error-bg: #3b1a1a;
        --error-text: #f6aea9;
        --focus: #8ab4f8;
        --notice-bg: #1d2a3d;
        --link: #8ab4f8;
      }
    }
    *, *::before, *::after { box-sizing: border-box; }
    html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
    body {
      margin: 0;
      min-height: 100vh;
      display: flex;
      align-items: flex-start;
      justify-content: center;
      padding: max(24px, env(safe-area-inset-top)) 16px max(24px, env(safe-area-inset-bottom));
      background: var(--bg);
      color: var(--text);
      font-family: system-ui, -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
      font-size: 17px;
      line-height: 1.45;
    }
    .card {
      width: 100%;
      max-width: 420px;
      margin-top: 6vh;
      padding: 28px 24px;
      background: var(--card);
      border: 1px solid var(--border);
      border-radius: 16px;
    }
    .logo { display: block; height: 56px; width: auto; max-width: 100%; object-fit: contain; margin: 0 0 16px; }
    h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 8px; overflow-wrap: anywhere; }
    p { margin: 0 0 16px; overflow-wrap: anywhere; }
    .subtitle { color: var(--muted); }
    .error {
      padding: 12px 14px;
      border-radius: 10px;
      background: var(--error-bg);
      color: var(--error-text);
    }
    form { display: flex; flex-direction: column; margin: 0; }
    label { font-weight: 600; margin: 12px 0 6px; }
    input[type="email"], input[type="password"], input[type="text"] {
      width: 100%;
      min-height: 48px;
      padding: 10px 14px;
      font: inherit;
      font-size: 17px;
      color: var(--text);
      background: var(--card);
      border: 1px solid var(--border);
      border-radius: 10px;
    }
    input:focus-visible, button:focus-visible {
      outline: 3px solid var(--focus);
      outline-offset: 2px;
    }
    .actions { display: flex; flex-direction: column; gap: 12px; margin-top: 24px; }
    .button {
      width: 100%;
      min-height: 48px;
      padding: 12px 16px;
      font: inherit;
      font-weight: 600;
      border-radius: 10px;
      border: 1px solid transparent;
      cursor: pointer;
      touch-action: manipulation;
    }
    a.button { display: flex; align-items: center; justify-content: center; text-align: center; text-decoration: none; }
    .button.primary { background: var(--accent); color: var(--accent-text); }
    .button.secondary { background: transparent; color: var(--text); border-color: var(--border); }
    .connections { gap: 12px; margin: 8px 0 0; }
    .button.connection { display: flex; align-items: center; justify-content: center; gap: 10px; }
    .logo-mark { flex: none; }
    .button.apple { background: #000000; color: #ffffff; }
    .button.google { background: #ffffff; color: #1f1f1f; border-color: #747775; }
    .button.oidc { background: transparent; color: var(--text); border-color: var(--border); }
    @media (prefers-color-scheme: dark) {
      .button.apple { background: #ffffff; color: #000000; }
      .button.google { background: #131314; color: #e3e3e3; border-color: #8e918f; }
    }
    .divider { display: flex; align-items: center; gap: 12px; margin: 20px 0 4px; color: var(--muted); font-size: 0.9rem; }
    .divider::before, .divider::after { content: ""; flex: 1; border-top: 1px solid var(--border); }
    .notice { padding: 12px 14px; border-radius: 10px; background: var(--notice-bg); color: var(--text); }
    .field-error { margin: 8px 0 0; padding: 8px 12px; }
    .hint { color: var(--muted); font-size: 0.9rem; margin: 6px 0 0; }
    input[aria-invalid="true"] { border-color: var(--error-text); border-width: 2px; }
    .reference { display: grid; grid-template-columns: auto 1fr; gap: 4px 12px; margin: 0; color: var(--muted); font-size: 0.9rem; }
    .reference dt { font-weight: 600; }
    .reference dd { margin: 0; overflow-wrap: anywhere; }
    .reference code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--text); }
    .links { display: flex; flex-direction: column; align-items: center; gap: 4px; margin-top: 20px; }
    .link {
      min-height: 44px;
      padding: 8px 12px;
      font: inherit;
      color: var(--link);
      background: none;
      border: none;
      text-decoration: underline;
      cursor: pointer;
    }
    @media (min-width: 600px) {
      body { align-items: center; }
      .card { margin-top: 0; padding: 36px 32px; }
    }

    """
}
