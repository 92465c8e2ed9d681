-- 0010_application_branding: an application's login-page logo (an https URL) and accent colour
-- (lower-case #rrggbb; the page picks white or black text for WCAG AA contrast, Model/BrandColor).
ALTER TABLE clients ADD COLUMN logo_url TEXT;
ALTER TABLE clients ADD COLUMN accent_color TEXT
    CHECK (accent_color IS NULL OR (length(accent_color) = 7 AND accent_color GLOB '#[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'));
