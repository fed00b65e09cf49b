"""karc.report (docs/REPORT.md): the page parses with Python's HTML parser,
its models equal karc.verify's and pyCANON's, hostile names are escaped, an
archive's page and its notebook summary."""

import html.parser
import pathlib

import pandas as pd
from pycanon import anonymity

import karc

ROOT = pathlib.Path(__file__).resolve().parents[2]
PYCANON = ROOT / "fixtures" / "pycanon" / "adult_anonymized_10.csv"
ADULT8 = ROOT / "fixtures" / "adult" / "adult8.toml"
ADULT = ROOT / "fixtures" / "adult" / "adult.csv"
QI = ["age", "education", "occupation", "relationship", "sex", "native-country"]
VOID = {"meta", "br", "hr", "img"}


class Nesting(html.parser.HTMLParser):
    """Checks that every element opened is closed in order."""

    def __init__(self) -> None:
        super().__init__()
        self.stack = []
        self.errors = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append((tag, self.stack[-3:], self.getpos()))
        else:
            self.stack.pop()


def assert_parses(page: str) -> None:
    p = Nesting()
    p.feed(page)
    p.close()
    assert p.errors == [] and p.stack == [], (p.errors[:5], p.stack)


def test_release_report_models_are_verify_s_and_pycanon_s():
    doc = karc.report(PYCANON, qi=QI, k=10, sensitive="salary-class", l=2, json_document=True)
    assert doc["schema"] == "karc.report/1" and doc["source"]["kind"] == "table"
    verified = karc.verify(PYCANON, qi=QI, k=10, sensitive="salary-class", l=2)
    assert doc["models"] == verified["models"]
    df = pd.read_csv(PYCANON)
    assert doc["models"]["k_anonymity"] == anonymity.k_anonymity(df, QI)
    assert doc["models"]["l_diversity"] == anonymity.l_diversity(df, QI, ["salary-class"])
    page = karc.report(PYCANON, qi=QI, k=10, sensitive="salary-class", l=2)
    assert_parses(page)
    assert "Non-disclosive report" in page


def test_hostile_names_are_escaped():
    df = pd.DataFrame({"<script>x</script>": ["<b>1</b>"] * 4, "a\"b'c": ["\x1b[31m"] * 4})
    page = karc.report(df, qi=list(df.columns), k=2, internal=True)
    assert_parses(page)
    assert "<script>" not in page and "<b>" not in page and "\x1b" not in page
    assert "INTERNAL REPORT" in page


def test_archive_page_and_notebook_summary(tmp_path):
    out = tmp_path / "a.karc"
    karc.pack(ADULT, out, config=ADULT8, k=10, no_encryption=True)
    archive = karc.open(out)
    page = archive.report()
    assert_parses(page)
    assert page.count("<svg") >= 3
    summary = archive._repr_html_()
    assert "claim <b>holds</b>" in summary and "30162 rows" in summary


def test_a_delimiter_that_is_not_ascii_is_refused_as_verify_refuses_it():
    for call in (karc.report, karc.verify):
        try:
            call(str(PYCANON), qi=QI, k=10, delimiter="\u00e9")
        except karc.BadInputError as e:
            assert "delimiter: expected one ASCII character" in str(e), e
        else:
            raise AssertionError(f"{call.__name__} took a non-ASCII delimiter")
