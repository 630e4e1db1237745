package docgen_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/internal/docgen"
)

// root is the module root, from this package's directory.
var root = filepath.Join("..", "..")

// TestDocsUpToDate fails when a generated page of docs/ no longer says
// what the code says: a scenario, check, ablation or fidelity entry was
// added or changed without `go generate ./...`.
func TestDocsUpToDate(t *testing.T) {
	for _, p := range docgen.Pages() {
		got, err := os.ReadFile(filepath.Join(root, "docs", p.Name))
		require.NoError(t, err, "docs/%s is missing: run go generate ./...", p.Name)
		require.Equal(t, p.Body, string(got), "docs/%s drifted from the code: run go generate ./...", p.Name)
	}
}

// TestReadmeUpToDate fails when a generated block of README.md (the line
// of counts) no longer says what the registries say: a scenario, check,
// ablation, fault kind, metric or bug-hunt run was added or removed
// without `go generate ./...`.
func TestReadmeUpToDate(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	for _, b := range docgen.ReadmeBlocks() {
		want, err := docgen.Splice(string(body), b)
		require.NoError(t, err, "README.md: block %q: put the markers back (see internal/docgen/readme.go), then run go generate ./...", b.Name)
		require.Equal(t, want, string(body), "README.md: the generated block %q drifted from the code: run go generate ./...", b.Name)
	}
}

// TestSplice: a block's body is replaced between its markers, and a page
// without them, or with them twice, is refused.
func TestSplice(t *testing.T) {
	b := docgen.Block{Name: "counts", Body: "new line\n"}
	begin := docgen.BlockBegin("counts")
	got, err := docgen.Splice("# T\n\n"+begin+"old line\n"+docgen.BlockEnd+"after\n", b)
	require.NoError(t, err)
	require.Equal(t, "# T\n\n"+begin+"new line\n"+docgen.BlockEnd+"after\n", got)
	got, err = docgen.Splice(begin+docgen.BlockEnd, b)
	require.NoError(t, err, "an empty block is filled")
	require.Equal(t, begin+"new line\n"+docgen.BlockEnd, got)
	for name, doc := range map[string]string{
		"no markers":     "# T\n",
		"no end":         begin + "old\n",
		"twice":          begin + docgen.BlockEnd + begin + docgen.BlockEnd,
		"mid-line begin": "x " + begin + docgen.BlockEnd,
		"mid-line end":   begin + "old" + docgen.BlockEnd,
	} {
		_, err := docgen.Splice(doc, b)
		require.Error(t, err, name)
	}
}

var (
	// mdLink matches an inline link or image, [text](target) or
	// ![alt](target "title"), capturing the target.
	mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// mdRef matches a reference definition, [name]: target.
	mdRef = regexp.MustCompile(`(?m)^\s{0,3}\[[^\]]+\]:\s+(\S+)`)
	// codeSpan matches inline code, which holds no links.
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	// heading matches an ATX heading, capturing its text.
	heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	// notInSlug is what a heading's anchor leaves out.
	notInSlug = regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
)

// prose returns the lines of a markdown page outside fenced code blocks,
// with inline code spans removed.
func prose(page string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, codeSpan.ReplaceAllString(line, ""))
		}
	}
	return out
}

// link is a relative link of a page: a path (empty for the page itself)
// and a fragment (empty when none).
type link struct{ path, fragment string }

// links returns the relative links of a markdown page, outside code blocks
// and code spans.
func links(page string) []link {
	text := strings.Join(prose(page), "\n")
	var out []link
	for _, re := range []*regexp.Regexp{mdLink, mdRef} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			target := strings.Trim(m[1], "<>")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			l := link{path: target}
			if i := strings.IndexByte(target, '#'); i >= 0 {
				l = link{path: target[:i], fragment: target[i+1:]}
			}
			out = append(out, l)
		}
	}
	return out
}

// anchors returns the anchors a renderer gives a page's headings, as
// GitHub makes them: lower case, punctuation dropped, spaces as hyphens,
// and -1, -2, ... after a repeated one.
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	for _, line := range prose(page) {
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := strings.ReplaceAll(notInSlug.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		a := slug
		for i := 1; out[a]; i++ {
			a = fmt.Sprintf("%s-%d", slug, i)
		}
		out[a] = true
	}
	return out
}

// TestLinks: every relative link of README.md and of the pages of docs/
// names a file or directory that exists, and a link to a heading of a
// markdown page names one that page has.
func TestLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	pages = append(pages, filepath.Join(root, "README.md"))
	for _, page := range pages {
		body, err := os.ReadFile(page)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, page)
		for _, l := range links(string(body)) {
			target := page
			if l.path != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(l.path))
				_, err := os.Stat(target)
				require.NoError(t, err, "%s links to %s, which does not exist", rel, l.path)
			}
			if l.fragment == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			linked, err := os.ReadFile(target)
			require.NoError(t, err)
			require.True(t, anchors(string(linked))[l.fragment], "%s links to %s#%s, which has no such heading", rel, l.path, l.fragment)
		}
	}
}

// TestLinksParser: links are found in text and images, not in code, and
// headings give GitHub's anchors.
func TestLinksParser(t *testing.T) {
	page := "See [a](a.md#x) and ![img](img/p.png \"t\"), [web](https://x.org), [top](#top).\n" +
		"`m[k](v)` is code.\n```go\nx := f[T](obj)\n```\n[ref]: ref.md\n"
	require.Equal(t, []link{{"a.md", "x"}, {"img/p.png", ""}, {"", "top"}, {"ref.md", ""}}, links(page))
	require.Equal(t, map[string]bool{"the-figures-before-and-after": true, "in-short": true, "in-short-1": true},
		anchors("# The figures: before and after\n## In short\n```sh\n# a comment\n```\n### In short\n"))
}
