package reports

import (
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/nemesis"
)

var svgTextX = regexp.MustCompile(`<text x="(-?[0-9.]+)"`)

// TestTimelineTitleFits: the timeline of a traffic sweep's run, whose title
// is wider than the plot, is wrapped rather than cut off on the left: no
// text starts left of the page.
func TestTimelineTitleFits(t *testing.T) {
	p, err := nemesis.ParseProfile("crash-restart:mttf=60s,mttr=20s")
	require.NoError(t, err)
	tl := &Timeline{Members: []MemberTimeline{{Name: "etcd-1"}, {Name: "etcd-2"}, {Name: "etcd-3"}}, End: 240}
	r := &scenarios.Result{Scenario: "rolling-update-traffic-no-prestop", Members: 3, Seed: 12345678901234, Profile: &p}
	f, err := TimelineFigure(tl, r)
	require.NoError(t, err)
	title := f.Plot.Title.Text
	require.Greater(t, f.Plot.Title.TextStyle.Width(title), f.W*3/4, "the title is too wide for the plot unwrapped")
	svg, err := f.Render("svg")
	require.NoError(t, err)
	for _, m := range svgTextX.FindAllStringSubmatch(string(svg), -1) {
		x, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, x, 0.0, "text starts left of the page")
	}
	assert.Contains(t, string(svg), "crash-restart:mttf=1m0s,mttr=20s (FAILED)</text>", "the profile wraps to its own line")
	assert.Equal(t, title, f.Plot.Title.Text, "rendering leaves the figure as it was")
}

func TestWrapText(t *testing.T) {
	p, err := nemesis.ParseProfile("crash-restart")
	require.NoError(t, err)
	style := newFigure("x", "", "", "", "").Plot.Title.TextStyle
	w := style.Width("Timeline of a, 3 members,")
	cases := []struct{ in, want string }{
		{"short", "short"},
		{"Timeline of a, 3 members, seed 1", "Timeline of a, 3 members,\nseed 1"},
		{"first\nTimeline of a, 3 members, seed 1", "first\nTimeline of a, 3 members,\nseed 1"},
		{p.String() + "-and-more-unbreakable", p.String() + "-and-more-unbreakable"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, wrapText(style, c.in, w+vg.Points(1)), c.in)
	}
	// Without a comma that fits, at spaces: every line fits, and the words
	// are all there.
	in := "Timeline of something much longer than that without any comma at all"
	out := wrapText(style, in, w+vg.Points(1))
	assert.Equal(t, in, strings.ReplaceAll(out, "\n", " "))
	for _, l := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, style.Width(l), w+vg.Points(1), l)
	}
}

// TestTimelineColorsDistinct: every entry of the timeline's legend has its
// own colour ("member down" and "write failed" once shared one red).
func TestTimelineColorsDistinct(t *testing.T) {
	colors := map[string]color.Color{
		"member up": colUp, "member down": colDown, "member paused": colPaused, "Raft leader": colLeader,
		"partition": colPartition, "write ok": colWriteOK, "write failed": colWriteFail,
	}
	seen := map[[4]uint32]string{}
	for _, name := range []string{"member up", "member down", "member paused", "Raft leader", "partition", "write ok", "write failed"} {
		r, g, b, a := colors[name].RGBA()
		k := [4]uint32{r, g, b, a}
		require.NotContains(t, seen, k, "%s has the colour of %s", name, seen[k])
		seen[k] = name
	}
}

// TestMembersLabel: the legends say "1 member", not "1 members".
func TestMembersLabel(t *testing.T) {
	for n, want := range map[int]string{1: "1 member", 3: "3 members", 7: "7 members"} {
		assert.Equal(t, want, membersLabel(n))
	}
	assert.Equal(t, "1 write", plural(1, "write"))
	assert.Equal(t, "0 writes", plural(0, "write"))

	// The fault-rate plot with one rate draws a curve per member count,
	// 1 to 7, with its legend.
	set := &Set{Results: []scenarios.Result{result("etcd-profile", 1, 1, crash, 0.75, 0.9, true)}}
	f, err := FaultRateFigure(set)
	require.NoError(t, err)
	svg, err := f.Render("svg")
	require.NoError(t, err)
	assert.Contains(t, string(svg), ">1 member</text>")
	assert.NotContains(t, string(svg), "1 members")
	assert.Contains(t, string(svg), ">2 members</text>")
	lat, err := LatencyFigure(set)
	require.NoError(t, err)
	svg, err = lat.Render("svg")
	require.NoError(t, err)
	assert.Contains(t, string(svg), ">1 member (10 writes)</text>")
}

// TestNoEmptyLatencyPlot: runs without an etcd KV write get no write
// latency plot (a stale one from an older report is removed), and the
// report has no figure for it.
func TestNoEmptyLatencyPlot(t *testing.T) {
	r := result("etcd-leader-crash", 3, 1, "", 1, 0, true)
	r.WriteLatencyHist = nil
	set := &Set{Results: []scenarios.Result{r}}
	f, err := LatencyFigure(set)
	require.NoError(t, err)
	assert.Nil(t, f)

	dir := t.TempDir()
	stale := filepath.Join(dir, PlotLatency+".png")
	require.NoError(t, os.WriteFile(stale, []byte("old"), 0o644))
	paths, err := WritePlots(dir, set)
	require.NoError(t, err)
	assert.Len(t, paths, 2*len(PlotNames))
	for _, p := range paths {
		assert.False(t, strings.Contains(p, PlotLatency), p)
	}
	_, err = os.Stat(stale)
	assert.True(t, os.IsNotExist(err), "the stale latency plot is removed")
	page, err := RenderHTML(set)
	require.NoError(t, err)
	assert.NotContains(t, string(page), `<figure id="`+PlotLatency+`">`)
	assert.Equal(t, len(PlotNames), strings.Count(string(page), "<svg "))
}
