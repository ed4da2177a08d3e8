/* yatmath report: claim filters, copy buttons and typeset mathematics. Plain JavaScript, works
   from file://. */
(function () {
  "use strict";

  function filters() {
    var form = document.getElementById("filters");
    var table = document.getElementById("claim-table");
    if (!form || !table) { return; }
    form.hidden = false;  /* without JavaScript the form stays hidden and every row shows */
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var shown = form.querySelector(".shown");

    function apply() {
      var verdicts = {};
      form.querySelectorAll("input[name=verdict]").forEach(function (box) {
        verdicts[box.value] = box.checked;
      });
      var paper = form.elements.paper ? form.elements.paper.value : "";
      var q = (form.elements.q.value || "").trim().toLowerCase();
      var n = 0;
      rows.forEach(function (tr) {
        var ok = verdicts[tr.getAttribute("data-verdict")] !== false &&
          (!paper || (" " + tr.getAttribute("data-papers") + " ").indexOf(" " + paper + " ") >= 0) &&
          (!q || tr.textContent.toLowerCase().indexOf(q) >= 0);
        tr.classList.toggle("hidden", !ok);
        if (ok) { n += 1; }
      });
      shown.textContent = n + " of " + rows.length + " shown";
    }

    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    /* a verdict count above the table shows that verdict only */
    document.querySelectorAll("[data-verdict-link]").forEach(function (a) {
      a.addEventListener("click", function () {
        var want = a.getAttribute("data-verdict-link");
        form.querySelectorAll("input[name=verdict]").forEach(function (box) {
          box.checked = box.value === want;
        });
        apply();
      });
    });
    apply();
  }

  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }

  function copyButtons() {
    document.querySelectorAll("button.copy").forEach(function (btn) {
      btn.addEventListener("click", function () {
        var target = document.getElementById(btn.getAttribute("data-copy"));
        if (!target) { return; }
        var text = target.textContent;
        function done(ok) {
          btn.textContent = ok ? "Copied" : "Select and copy";
          btn.classList.toggle("done", ok);
          if (!ok) {
            var range = document.createRange();
            range.selectNodeContents(target);
            var sel = window.getSelection();
            sel.removeAllRanges();
            sel.addRange(range);
          }
        }
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(function () { done(true); },
            function () { done(fallbackCopy(text)); });
        } else {
          done(fallbackCopy(text));
        }
      });
    });
  }

  /* Mathematics with KaTeX (static/katex, shipped with the site): every element of class "math".
     Claim texts may use $...$, $$...$$, \(...\) and \[...\]; paper passages
     (data-math="dollars") only dollars, since the shipped texts write \( for a plain
     parenthesis.  Input KaTeX cannot parse stays as its source, in grey; nothing is logged. */
  function math() {
    if (typeof window.renderMathInElement !== "function") { return; }
    var dollars = [
      { left: "$$", right: "$$", display: true },
      { left: "$", right: "$", display: false }
    ];
    var all = dollars.concat([
      { left: "\\[", right: "\\]", display: true },
      { left: "\\(", right: "\\)", display: false }
    ]);
    document.querySelectorAll(".math").forEach(function (el) {
      try {
        window.renderMathInElement(el, {
          delimiters: el.getAttribute("data-math") === "dollars" ? dollars : all,
          throwOnError: false,
          errorColor: "#5b6475",
          strict: "ignore",
          trust: false,
          errorCallback: function () {}
        });
      } catch (e) { /* leave the text as it is */ }
    });
  }

  filters();
  copyButtons();
  math();
}());
