package web_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/serve/web"
	"github.com/chromedp/chromedp"
)

// The Markdown renderer, run in a real browser on the page's own module.
var markdownCases = []struct {
	name, src, want string // want: the rendered HTML
}{
	{"strong and em", "a **bold** and *em* and ***both***",
		`<p>a <strong>bold</strong> and <em>em</em> and <strong><em>both</em></strong></p>`},
	{"snake_case stays", "use snake_case_name here", `<p>use snake_case_name here</p>`},
	{"arithmetic stays", "2 * 3 * 4", `<p>2 * 3 * 4</p>`},
	{"code span", "run `a <b> && c`", `<p>run <code>a &lt;b&gt; &amp;&amp; c</code></p>`},
	{"script is text", "<script>alert(1)</script>", `<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>`},
	{"img onerror is text", `<img src=x onerror="window.pwned=1">`, `<p>&lt;img src=x onerror="window.pwned=1"&gt;</p>`},
	{"link", "[docs](https://go.dev/doc)",
		`<p><a href="https://go.dev/doc" target="_blank" rel="noopener noreferrer">docs</a></p>`},
	{"javascript link is text", "[x](javascript:alert(1))", `<p>[x](javascript:alert(1))</p>`},
	{"javascript link with tab is text", "[x](java\tscript:alert(1))", `<p>[x](java	script:alert(1))</p>`},
	{"data link is text", "[x](data:text/html,hi)", `<p>[x](data:text/html,hi)</p>`},
	{"bare URL", "see https://go.dev/ref/spec.",
		`<p>see <a href="https://go.dev/ref/spec" target="_blank" rel="noopener noreferrer">https://go.dev/ref/spec</a>.</p>`},
	{"heading", "## Plan", `<h2>Plan</h2>`},
	{"fence", "```go\nif a < b {\n}\n```",
		`<div class="code"><span class="code-lang">go</span><pre><code data-lang="go">if a &lt; b {` + "\n" + `}</code></pre><button class="copy" type="button" title="Copy to the clipboard">copy</button></div>`},
	{"unclosed fence streams", "```\nhalf", `<div class="code"><pre><code>half</code></pre><button class="copy" type="button" title="Copy to the clipboard">copy</button></div>`},
	{"list nested", "1. one\n2. two\n   - a\n   - b",
		`<ol><li>one</li><li>two<ul><li>a</li><li>b</li></ul></li></ol>`},
	{"table", "| a | b |\n|---|--:|\n| 1 | 2 |",
		`<div class="table"><table><thead><tr><th>a</th><th class="al-right">b</th></tr></thead><tbody><tr><td>1</td><td class="al-right">2</td></tr></tbody></table></div>`},
	{"quote", "> said", `<blockquote><p>said</p></blockquote>`},
	{"escape", `\*not em\*`, `<p>*not em*</p>`},
	{"brackets in a link", "[[x]](https://a.example/)",
		`<p><a href="https://a.example/" target="_blank" rel="noopener noreferrer">[x]</a></p>`},
	{"unclosed link", "[a](b", `<p>[a](b</p>`},
	{"closing hashes", "### Title ###", `<h3>Title</h3>`},
	{"hash in heading", "# C# notes", `<h1>C# notes</h1>`},
	{"deep quotes are text", strings.Repeat(">", 40) + " x", `<blockquote>` + strings.Repeat(`<blockquote>`, 16) +
		`<p>` + strings.Repeat("&gt;", 23) + ` x</p>` + strings.Repeat(`</blockquote>`, 17)},
	{"unclosed emphasis", "**a _b `c", "<p>**a _b `c</p>"},
}

// hostile are inputs whose every rendering must hold only the renderer's own
// elements and attributes.
var hostile = []string{
	"<a href=\"javascript:alert(1)\">x</a>",
	"[a](<javascript:alert(1)>) [b]( javascript:alert(1) ) [c](JaVaScRiPt:alert(1)) [d](vbscript:x)",
	"![i](javascript:alert(1)) ![j](https://elsewhere.example/p.png)",
	"<svg onload=alert(1)><iframe src=x></iframe><style>*{}</style>",
	"**<b onmouseover=alert(1)>x</b>** `<i>` ~~<u>~~",
	"| <img src=x onerror=alert(1)> |\n|---|\n| [x](javascript:1) |",
	"```<script>\n<script>alert(1)</script>\n```",
	"- [ ] <script>\n- [x] [y](data:x)",
	"<https://ok.example/> <javascript:alert(1)>",
	"\x00\u202e[x](https://a.example/\"onmouseover=\"alert(1))",
}

// renderScript renders each source with the page's own module into a probe
// element in the document (where an event handler, had one slipped in, would
// run) and returns the HTML of each.
const renderScript = `(async (cases) => {
  const md = await import('./assets/md.js');
  window.pwned = 0;
  const out = [];
  for (const src of cases) {
    const d = document.createElement('div');
    d.className = 'probe';
    d.append(md.renderMarkdown(src));
    document.body.append(d);
    out.push(d.innerHTML);
  }
  return out;
})`

// auditScript lists every element and attribute in the probes that the
// renderer does not make itself, and every link to anything but http(s) or mailto.
const auditScript = `(() => {
  const tags = new Set(['DIV','P','H1','H2','H3','H4','H5','H6','STRONG','EM','DEL','CODE','PRE','A','UL','OL','LI',
    'BLOCKQUOTE','HR','BR','TABLE','THEAD','TBODY','TR','TH','TD','SPAN','BUTTON','svg','rect','circle','path']);
  const attrs = new Set(['class','href','target','rel','title','type','start','data-lang','viewBox','aria-hidden',
    'x','y','width','height','rx','cx','cy','r','d']);
  const bad = [];
  for (const e of document.querySelectorAll('div.probe *')) {
    if (!tags.has(e.tagName)) bad.push('element ' + e.tagName);
    for (const a of e.attributes) {
      if (!attrs.has(a.name)) bad.push(e.tagName + ' attribute ' + a.name);
    }
    if (e.tagName === 'A' && !/^(https?:|mailto:)/.test(e.getAttribute('href'))) bad.push('href ' + e.getAttribute('href'));
  }
  if (window.pwned) bad.push('a script ran');
  return bad;
})()`

func render(t *testing.T, ctx context.Context, srcs []string) []string {
	t.Helper()
	arg, err := json.Marshal(srcs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](renderScript+"("+string(arg)+")", chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("rendering in the browser: %v", err)
	}
	if len(got) != len(srcs) {
		t.Fatalf("%d renderings of %d sources", len(got), len(srcs))
	}
	return got
}

func TestMarkdownInBrowser(t *testing.T) {
	ctx := browser(t)
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()
	navigate(t, ctx, srv.URL+"/")
	// The page has started (its modules load under its Content-Security-Policy).
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`!document.getElementById('app').hidden`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page did not start: %v", err)
	}
	srcs := make([]string, len(markdownCases))
	for i, c := range markdownCases {
		srcs[i] = c.src
	}
	got := render(t, ctx, srcs)
	for i, c := range markdownCases {
		if got[i] != c.want {
			t.Errorf("%s: %q\n got %s\nwant %s", c.name, c.src, got[i], c.want)
		}
	}

	// Hostile text, whole and cut at every length as a stream would show it.
	var pieces []string
	for _, h := range hostile {
		for n := 1; n <= len(h); n++ {
			pieces = append(pieces, h[:n])
		}
	}
	render(t, ctx, pieces)
	time.Sleep(200 * time.Millisecond) // an image's error handler would have run by now
	bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](auditScript))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}
