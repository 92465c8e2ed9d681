/// `assets/form-post.js`: submits the page's first form once the document is parsed.
///
/// Calls `HTMLFormElement.prototype.submit` because a field named "submit" would shadow `form.submit`.
enum FormPostScript {
    static let text = """
    (function () {
      "use strict";
      function go() {
        var form = document.forms[0];
        if (form) {
          HTMLFormElement.prototype.submit.call(form);
        }
      }
      if (document.readyState === "loading") {
        document.addEventListener("DOMContentLoaded", go);
      } else {
        go();
      }
    })();

    """
}
