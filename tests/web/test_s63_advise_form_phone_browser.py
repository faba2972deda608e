"""The advisor's workload form in real headless Chromium (stop 63), every fold of it open: no control
clips the text it shows. At 390 px the "Spot allowed" select showed "default for this ki…" (its default
choice needed 195 px in a 163 px select) and a chosen engine or weight format was cut off likewise (a
select shared its row with another field); a select now reads its default choice whole at either width,
and on a phone takes the whole row, so a chosen option is cut only when it is wider than the form itself
(four weight formats are: nf4, fp8-block, fp8-ffn and mxfp4-moe, whose labels are the estimator's).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

FORMS = {
    "serve": "/advise?kind=serve&model=llama-3.1-8b&concurrency=8&prompt_tokens=2000&output_tokens=500",
    "batch": "/advise?kind=batch&model=llama-3.1-8b",
    "image batch": "/advise?kind=batch&model=flux.1-dev&images_total=10000",
    "finetune": "/advise?kind=finetune&model=llama-3.1-8b&dataset_tokens=50000000",
    "pretrain": "/advise?kind=pretrain&model=llama-3.1-8b&token_budget=1e11&gpus=64",
}
OPEN_ALL = (
    "() => document.querySelectorAll('#workload-fold, #workload-fold details').forEach(d => d.open = true)"
)
#: Each visible control of the form and the width its text needs. A select's need is that of a copy of
#: it holding only the option in question, at its own auto width (Chromium sizes a select to its widest
#: option plus its padding and arrow); an input's is its scrollWidth. ``every``: each option of a select,
#: else only the chosen one.
MEASURE = """(every) => {
  const out = [];
  const form = document.querySelector('#workload'), pad = getComputedStyle(form);
  const row = form.clientWidth - parseFloat(pad.paddingLeft) - parseFloat(pad.paddingRight);
  for (const el of document.querySelectorAll('#workload select, #workload input:not([type=hidden])')) {
    if (!el.offsetParent) continue;
    const width = el.getBoundingClientRect().width;
    if (el.tagName === 'INPUT') {
      out.push({name: el.name, text: el.value, need: el.scrollWidth, width: el.clientWidth, row});
      continue;
    }
    for (const o of every ? el.options : [el.selectedOptions[0]]) {
      const copy = el.cloneNode(false);
      copy.removeAttribute('name');
      copy.append(o.cloneNode(true));
      copy.style.cssText = 'position: absolute; visibility: hidden; width: auto; min-width: 0; '
        + 'max-width: none';
      el.parentElement.append(copy);
      const need = copy.getBoundingClientRect().width;
      copy.remove();
      out.push({name: el.name, text: o.text, need, width, row});
    }
  }
  return {controls: out, scroll: document.documentElement.scrollWidth,
          client: document.documentElement.clientWidth};
}"""


def measure(browser: Browser, url: str, width: int, *, every: bool) -> dict[str, object]:
    context = browser.new_context(viewport={"width": width, "height": 844})
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_load_state("networkidle")
        page.evaluate(OPEN_ALL)
        got: dict[str, object] = page.evaluate(MEASURE, every)
    finally:
        context.close()
    return got


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("kind", FORMS)
def test_no_control_of_the_form_clips_what_it_shows(
    browser: Browser, base_url: str, kind: str, width: int
) -> None:
    got = measure(browser, base_url + FORMS[kind], width, every=False)
    controls = got["controls"]
    assert isinstance(controls, list) and any(c["name"] == "spot_allowed" for c in controls), got
    clipped = [
        f"{c['name']}: {c['text']!r} needs {c['need']:.0f} px in {c['width']:.0f}"
        for c in controls
        if c["need"] > c["width"] + 0.5
    ]
    assert not clipped
    assert got["scroll"] == got["client"] == width, got


@pytest.mark.parametrize("kind", FORMS)
def test_on_a_phone_each_choice_of_a_select_reads_whole_once_chosen_unless_wider_than_the_form(
    browser: Browser, base_url: str, kind: str
) -> None:
    got = measure(browser, base_url + FORMS[kind], 390, every=True)
    controls = got["controls"]
    assert isinstance(controls, list)
    cut = [
        f"{c['name']}: {c['text']!r} needs {c['need']:.0f} px in {c['width']:.0f} (form {c['row']})"
        for c in controls
        if c["width"] + 0.5 < c["need"] <= c["row"]
    ]
    assert not cut
