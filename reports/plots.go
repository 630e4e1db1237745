package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kubesim/kubesim/metrics"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/sim"
)

// The plots, by file name without extension, in the order the report
// shows them.
const (
	PlotAvailability = "availability_by_members"
	PlotFaultRate    = "availability_vs_fault_rate"
	PlotLatency      = "write_latency"
	PlotTimeline     = "timeline"
	// PlotRequestSuccess is drawn only when runs measured request_success
	// (see RequestSuccessFigure); the report shows it after PlotFaultRate.
	PlotRequestSuccess = "request_success_vs_fault_rate"
)

// PlotNames lists the plots WritePlots always draws.
var PlotNames = []string{PlotAvailability, PlotFaultRate, PlotTimeline}

// OptionalPlotNames lists the plots WritePlots draws only when the results
// hold what they show: request success when runs measured it, write
// latency when runs made a successful etcd KV write.
var OptionalPlotNames = []string{PlotRequestSuccess, PlotLatency}

// membersLabel is "1 member", "3 members".
func membersLabel(n int) string { return plural(n, "member") }

// plural is "1 write", "2 writes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Figure is one plot, with its legend drawn to the right of the data.
type Figure struct {
	Name    string
	Caption string
	Plot    *plot.Plot
	Legend  plot.Legend
	W, H    vg.Length
}

// Render draws the figure in a format gonum/plot knows ("svg", "png").
func (f *Figure) Render(format string) ([]byte, error) {
	c, err := draw.NewFormattedCanvas(f.W, f.H, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	// White background, so that the PNG is readable on any viewer.
	dc.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: f.W, Y: 0}, {X: f.W, Y: f.H}, {X: 0, Y: f.H}})
	lw := vg.Length(0)
	if f.hasLegend() {
		r := f.Legend.Rectangle(dc)
		lw = r.Max.X - r.Min.X + vg.Points(16)
	}
	// A title wider than the plot would be centred past its left edge:
	// wrapped to the width it has instead.
	title := f.Plot.Title.Text
	defer func() { f.Plot.Title.Text = title }()
	f.Plot.Title.Text = wrapText(f.Plot.Title.TextStyle, title, f.W-lw-vg.Points(8))
	f.Plot.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	if lw > 0 {
		lc := draw.Crop(dc, f.W-lw+vg.Points(8), -vg.Points(8), 0, -vg.Points(30))
		f.Legend.Draw(lc)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// wrapText breaks each line of text that is wider than width at its last
// ", " that fits, or else its last space that fits (a word wider than
// width stays whole).
func wrapText(style text.Style, txt string, width vg.Length) string {
	var out []string
	for _, line := range strings.Split(txt, "\n") {
		for style.Width(line) > width {
			comma, space := -1, -1
			for i := range line {
				if line[i] != ' ' || i == 0 {
					continue
				}
				if style.Width(strings.TrimRight(line[:i], " ")) > width {
					break
				}
				space = i
				if line[i-1] == ',' {
					comma = i
				}
			}
			cut := comma
			if cut < 0 {
				cut = space
			}
			if cut < 0 {
				break
			}
			out = append(out, strings.TrimRight(line[:cut], " "))
			line = strings.TrimLeft(line[cut:], " ")
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// hasLegend reports whether the legend has entries (plot.Legend keeps
// them private; an empty one has no height).
func (f *Figure) hasLegend() bool {
	r := f.Legend.Rectangle(draw.Canvas{})
	return r.Max.Y-r.Min.Y > 0
}

// newFigure is a figure named name in the reports' style: its title, its
// caption, and its axes labelled x and y ("" for no label, or one set
// later).
func newFigure(name, title, caption, x, y string) *Figure {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Add(plotter.NewGrid())
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(10)
	l.Padding = vg.Points(3)
	return &Figure{Name: name, Caption: caption, Plot: p, Legend: l, W: 20 * vg.Centimeter, H: 11 * vg.Centimeter}
}

var palette = []color.Color{
	rgb(0x1f, 0x77, 0xb4), rgb(0xff, 0x7f, 0x0e), rgb(0x2c, 0xa0, 0x2c), rgb(0xd6, 0x27, 0x28),
	rgb(0x94, 0x67, 0xbd), rgb(0x8c, 0x56, 0x4b), rgb(0xe3, 0x77, 0xc2), rgb(0x7f, 0x7f, 0x7f),
	rgb(0xbc, 0xbd, 0x22), rgb(0x17, 0xbe, 0xcf),
}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 255} }

func colorAt(i int) color.Color { return palette[((i%len(palette))+len(palette))%len(palette)] }

// memberColors give each member count its own color in every plot: blue,
// orange and green for the usual 3, 4 and 5.
var memberColors = []color.Color{
	rgb(0x94, 0x67, 0xbd), rgb(0x8c, 0x56, 0x4b), rgb(0x1f, 0x77, 0xb4), rgb(0xff, 0x7f, 0x0e),
	rgb(0x2c, 0xa0, 0x2c), rgb(0xe3, 0x77, 0xc2), rgb(0xbc, 0xbd, 0x22),
}

func memberColor(n int) color.Color {
	if n >= 1 && n <= len(memberColors) {
		return memberColors[n-1]
	}
	return colorAt(n)
}

// errPoints are points with asymmetric y errors.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// clippedCI returns the point (x, mean) with its interval clipped to [0,1].
func clippedCI(x float64, s Stat) (plotter.XY, struct{ Low, High float64 }) {
	lo, hi := max(s.Lo(), 0), min(s.Hi(), 1)
	return plotter.XY{X: x, Y: s.Mean}, struct{ Low, High float64 }{s.Mean - lo, hi - s.Mean}
}

func addErrPoints(f *Figure, pts errPoints, c color.Color, shape draw.GlyphDrawer, name string) error {
	sc, err := plotter.NewScatter(pts.XYs)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: c, Shape: shape, Radius: vg.Points(3.5)}
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	eb.LineStyle.Color = c
	eb.LineStyle.Width = vg.Points(1.2)
	eb.CapWidth = vg.Points(6)
	f.Plot.Add(eb, sc)
	if name != "" {
		f.Legend.Add(name, sc)
	}
	return nil
}

func addLine(f *Figure, xys plotter.XYs, c color.Color, dashed bool, shape draw.GlyphDrawer, name string) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.LineStyle.Color = c
	l.LineStyle.Width = vg.Points(1.3)
	if dashed {
		l.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	thumbs := []plot.Thumbnailer{l}
	f.Plot.Add(l)
	if shape != nil {
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: c, Shape: shape, Radius: vg.Points(3.5)}
		f.Plot.Add(sc)
		thumbs = append(thumbs, sc)
	}
	if name != "" {
		f.Legend.Add(name, thumbs...)
	}
	return nil
}

func intTicks(ns []int) plot.ConstantTicks {
	var t plot.ConstantTicks
	for _, n := range ns {
		t = append(t, plot.Tick{Value: float64(n), Label: strconv.Itoa(n)})
	}
	return t
}

// memberAxis makes the x axis one of member counts: a tick at each of ms
// (ascending), with room on both sides.
func memberAxis(p *plot.Plot, ms []int) {
	p.X.Tick.Marker = intTicks(ms)
	p.X.Min, p.X.Max = float64(ms[0])-0.6, float64(ms[len(ms)-1])+0.6
}

// fracTicks labels availability axes with enough digits to tell 0.99 from
// 0.999.
type fracTicks struct{}

func (fracTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	step := math.Inf(1)
	prev := math.NaN()
	for _, t := range ts {
		if t.Label != "" {
			if !math.IsNaN(prev) {
				step = min(step, t.Value-prev)
			}
			prev = t.Value
		}
	}
	digits := 1
	if !math.IsInf(step, 1) && step > 0 {
		digits = max(1, int(math.Ceil(-math.Log10(step)-1e-9)))
	}
	// Ticks need not be multiples of their step (0.55, 0.75, 0.95 every
	// 0.2): more digits, until every label reads as its value.
	for digits < 9 && !labelsExact(ts, digits) {
		digits++
	}
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', digits, 64)
		}
	}
	return ts
}

// labelsExact reports whether every labelled tick's value prints exactly
// with digits decimals.
func labelsExact(ts []plot.Tick, digits int) bool {
	scale := math.Pow(10, float64(digits))
	for _, t := range ts {
		if t.Label != "" && math.Abs(math.Round(t.Value*scale)/scale-t.Value) > 1e-9 {
			return false
		}
	}
	return true
}

// availabilityRange sets the y axis to cover the values with a margin,
// never beyond [0, 1].
func availabilityRange(p *plot.Plot, vals []float64) {
	lo, hi := 1.0, 0.0
	for _, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	pad := max((hi-lo)*0.08, 0.005)
	p.Y.Min, p.Y.Max = max(lo-pad, 0), min(hi+pad, 1.0001)
	p.Y.Tick.Marker = fracTicks{}
}

// AvailabilityFigure draws availability by member count: per series, the
// mean quorum_up_fraction and write_availability with their 95% intervals,
// beside the binomial prediction. A group without a metric (full-stack
// runs have no write_availability) has no point for it.
func AvailabilityFigure(set *Set) (*Figure, error) {
	f := newFigure(PlotAvailability, "Availability by etcd member count (mean, 95% CI)",
		"Each point is the mean over a group's runs (seeds); bars are 95% confidence intervals. The dashed line is the binomial probability that a quorum of members is up, from the profile's MTTF and MTTR.",
		"etcd members", "fraction of the run")
	p := f.Plot
	groups := set.Groups()
	ss := series(groups)
	ms := memberCounts(groups)
	memberAxis(p, ms)
	var vals []float64
	width := 0.36 / float64(len(ss))
	short := shortSeriesNames(ss)
	for si, s := range ss {
		var qu, wa errPoints
		var pred plotter.XYs
		base := -0.18 + width*(float64(si)+0.5)
		for _, g := range s {
			x := float64(g.Members) + base
			// A group plots only what its runs measured.
			if g.QuorumUp.N > 0 {
				xy, e := clippedCI(x-width/5, g.QuorumUp)
				qu.XYs, qu.YErrors = append(qu.XYs, xy), append(qu.YErrors, e)
				vals = append(vals, max(g.QuorumUp.Lo(), 0), min(g.QuorumUp.Hi(), 1))
			}
			if g.WriteAvail.N > 0 {
				xy, e := clippedCI(x+width/5, g.WriteAvail)
				wa.XYs, wa.YErrors = append(wa.XYs, xy), append(wa.YErrors, e)
				vals = append(vals, max(g.WriteAvail.Lo(), 0), min(g.WriteAvail.Hi(), 1))
			}
			if g.HasPrediction {
				pred = append(pred, plotter.XY{X: float64(g.Members), Y: g.Prediction})
				vals = append(vals, g.Prediction)
			}
		}
		suffix := ""
		if len(ss) > 1 {
			suffix = " (" + short[si] + ")"
		}
		if len(pred) > 0 {
			if err := addLine(f, pred, colorAt(2*si), true, draw.CrossGlyph{}, "binomial prediction"+suffix); err != nil {
				return nil, err
			}
		}
		if len(qu.XYs) > 0 {
			if err := addErrPoints(f, qu, colorAt(2*si), draw.CircleGlyph{}, "quorum up"+suffix); err != nil {
				return nil, err
			}
		}
		if len(wa.XYs) > 0 {
			if err := addErrPoints(f, wa, colorAt(2*si+1), draw.TriangleGlyph{}, "write availability"+suffix); err != nil {
				return nil, err
			}
		}
	}
	availabilityRange(p, vals)
	if len(ss) == 1 {
		p.Title.Text += "\n" + ss[0][0].SeriesName()
	}
	return f, nil
}

// shortSeriesNames names each series by what tells it apart from the
// others: scenario, profile name, profile parameters, ablations.
func shortSeriesNames(ss [][]*Group) []string {
	parts := make([][]string, len(ss))
	for i, s := range ss {
		g := s[0]
		params := ""
		if g.Profile != nil {
			var kv []string
			for _, k := range sim.SortedKeys(g.Profile.Params) {
				kv = append(kv, k+"="+g.Profile.Params[k])
			}
			params = strings.Join(kv, ",")
		}
		parts[i] = []string{g.Scenario, profileKind(g), params, ablationsName(g), g.variantName()}
	}
	return distinguishing(parts)
}

// familyNames names each rate family by what tells it apart from the
// others: scenario, profile name, ablations.
func familyNames(fams []*rateFamily) []string {
	parts := make([][]string, len(fams))
	for i, fam := range fams {
		g := fam.groups[0]
		parts[i] = []string{g.Scenario, profileKind(g), ablationsName(g), g.variantName()}
	}
	return distinguishing(parts)
}

func profileKind(g *Group) string {
	if g.Profile == nil {
		return "scenario faults"
	}
	return g.Profile.Name
}

func ablationsName(g *Group) string {
	if len(g.Ablations) == 0 {
		return "no ablation"
	}
	return "ablate " + strings.Join(g.Ablations, ",")
}

// distinguishing joins, for each row of parts, the columns in which the
// rows differ (every non-empty column when there is one row).
func distinguishing(parts [][]string) []string {
	out := make([]string, len(parts))
	if len(parts) == 0 {
		return out
	}
	for c := range parts[0] {
		same := true
		for i := range parts {
			same = same && parts[i][c] == parts[0][c]
		}
		if same && len(parts) > 1 {
			continue
		}
		for i := range parts {
			if parts[i][c] != "" {
				if out[i] != "" {
					out[i] += " "
				}
				out[i] += parts[i][c]
			}
		}
	}
	return out
}

// rateFamily is the runs that share everything but the fault rate and the
// member count: the lines of the fault-rate plot.
type rateFamily struct {
	name   string
	unit   string
	groups []*Group
	rates  []float64
	mttr   float64 // seconds, the most common, for crash rates
}

func rateFamilies(groups []*Group) []*rateFamily {
	var out []*rateFamily
	idx := map[string]*rateFamily{}
	for _, g := range groups {
		if !g.HasRate {
			continue
		}
		k := g.Scenario + "|" + g.Profile.Name + "|" + strings.Join(g.Ablations, ",") + "|" + g.runKind()
		fam := idx[k]
		if fam == nil {
			name := g.Scenario + " / " + g.Profile.Name
			if len(g.Ablations) > 0 {
				name += " / ablate " + strings.Join(g.Ablations, ",")
			}
			if v := g.variantName(); v != "" {
				name += " / " + v
			}
			fam = &rateFamily{name: name, unit: g.RateUnit}
			idx[k] = fam
			out = append(out, fam)
		}
		fam.groups = append(fam.groups, g)
	}
	for _, fam := range out {
		seen := map[float64]bool{}
		mttrs := map[float64]int{}
		for _, g := range fam.groups {
			if !seen[g.FaultRate] {
				seen[g.FaultRate] = true
				fam.rates = append(fam.rates, g.FaultRate)
			}
			if _, r, ok := profileDurations(*g.Profile); ok {
				mttrs[r.Seconds()]++
			}
		}
		sort.Float64s(fam.rates)
		best := 0
		var keys []float64
		for k := range mttrs { // determinism: sorted below
			keys = append(keys, k)
		}
		sort.Float64s(keys)
		for _, k := range keys {
			if mttrs[k] > best {
				best, fam.mttr = mttrs[k], k
			}
		}
	}
	// The family with the most distinct rates, crash rates first.
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i].rates) != len(out[j].rates) {
			return len(out[i].rates) > len(out[j].rates)
		}
		return out[i].unit == UnitCrashes && out[j].unit != UnitCrashes
	})
	return out
}

// DefaultMTTR is the crash-restart profile's default mean time to repair,
// used for the analytic curves when the results have none.
const DefaultMTTR = 20.0

// analyticRate is the binomial prediction at a crash rate (per
// member-hour) and an MTTR in seconds.
func analyticRate(n int, rate, mttr float64) float64 {
	if rate <= 0 {
		return 1
	}
	mttf := 3600 / rate
	return QuorumUpProbability(n, mttf/(mttf+mttr))
}

// FaultRateFigure draws availability against fault rate, one line per
// member count. With fewer than two distinct rates in the results, it draws
// the binomial curves for 1 to 7 members over a range of crash rates at the
// observed MTTR instead, with the measured points on them.
func FaultRateFigure(set *Set) (*Figure, error) {
	f := newFigure(PlotFaultRate, "Quorum availability against fault rate", "", "", "quorum up (fraction of the run)")
	p := f.Plot
	fams := rateFamilies(set.Groups())
	var vals []float64
	var fam *rateFamily
	if len(fams) > 0 {
		fam = fams[0]
	}
	if fam != nil && len(fam.rates) >= 2 {
		p.Title.Text += "\n" + fam.name
		p.X.Label.Text = fam.unit
		f.Caption = "Measured mean fraction of the run with a quorum up (95% CI) at each fault rate in the results, one line per member count"
		if fam.unit == UnitCrashes {
			f.Caption += "; dashed: the binomial prediction at the same MTTR"
		}
		f.Caption += "."
		var err error
		if vals, err = rateLines(f, []*rateFamily{fam}, quorumUp); err != nil {
			return nil, err
		}
		if fam.unit == UnitCrashes {
			hi := fam.rates[len(fam.rates)-1] * 1.1
			for _, n := range memberCounts(fam.groups) {
				p.Add(analyticCurve(n, fam.mttr, 0, hi))
				vals = append(vals, analyticRate(n, hi, fam.mttr))
			}
		}
		availabilityRange(p, vals)
		return f, nil
	}
	mttr, obs := DefaultMTTR, 0.0
	if fam != nil && fam.unit == UnitCrashes {
		mttr, obs = fam.mttr, fam.rates[0]
	}
	hi := 180.0
	if obs > 0 {
		hi = 3 * obs
	}
	p.X.Label.Text = UnitCrashes
	p.X.Min, p.X.Max = 0, hi
	f.Caption = fmt.Sprintf("The results hold fewer than two fault rates, so this plot shows the binomial prediction for 1 to 7 members (lines) over a range of crash rates at MTTR %gs", mttr)
	p.Title.Text += fmt.Sprintf("\nbinomial prediction at MTTR %gs", mttr)
	for n := 1; n <= scenarios.MaxMembers; n++ {
		fn := analyticCurve(n, mttr, 0, hi)
		fn.Dashes = nil
		fn.Color = memberColor(n)
		p.Add(fn)
		f.Legend.Add(membersLabel(n), fn)
	}
	vals = append(vals, analyticRate(1, hi, mttr), 1)
	if fam != nil {
		p.Title.Text += "; points: " + fam.name
		f.Caption += ", with the measured means (95% CI) of " + fam.name
		if fam.unit != UnitCrashes {
			f.Caption += fmt.Sprintf(" at %g %s (placed at x = that number, which is not a crash rate)", fam.rates[0], fam.unit)
		}
		for _, g := range fam.groups {
			xy, e := clippedCI(g.FaultRate, g.QuorumUp)
			pts := errPoints{plotter.XYs{xy}, plotter.YErrors{e}}
			if err := addErrPoints(f, pts, memberColor(g.Members), draw.CircleGlyph{}, ""); err != nil {
				return nil, err
			}
			vals = append(vals, xy.Y-e.Low)
		}
		f.Legend.Add("measured (95% CI)", &plotter.Scatter{XYs: plotter.XYs{{}}, GlyphStyle: draw.GlyphStyle{Color: color.Black, Shape: draw.CircleGlyph{}, Radius: vg.Points(3.5)}})
	} else {
		f.Caption += "; no result has a fault profile with a rate"
	}
	f.Caption += "."
	availabilityRange(p, vals)
	return f, nil
}

func quorumUp(g *Group) Stat { return g.QuorumUp }

// rateLines draws a metric of each family against the fault rate: one
// line per family and member count, colored by member count, with a glyph
// per family and the family's short name in the legend when there are
// several. It sets the x axis to start at 0 and returns the ends of the
// intervals drawn, for the y range.
func rateLines(f *Figure, fams []*rateFamily, stat func(*Group) Stat) ([]float64, error) {
	glyphs := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}
	short := familyNames(fams)
	rate := func(g *Group) float64 { return g.FaultRate }
	var vals []float64
	for fi, fam := range fams {
		for _, n := range memberCounts(fam.groups) {
			var gs []*Group
			for _, g := range fam.groups {
				if g.Members == n {
					gs = append(gs, g)
				}
			}
			name := membersLabel(n)
			if len(fams) > 1 {
				name += " (" + short[fi] + ")"
			}
			v, err := addStatLine(f, gs, rate, stat, memberColor(n), glyphs[fi%len(glyphs)], name)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v...)
		}
	}
	f.Plot.X.Min = 0
	return vals, nil
}

// addStatLine draws a metric of the groups against x: the means joined in
// x order, each with its 95% interval clipped to [0, 1]. Groups whose runs
// did not measure the metric have no point. It returns the ends of the
// intervals drawn.
func addStatLine(f *Figure, groups []*Group, x func(*Group) float64, stat func(*Group) Stat, c color.Color, shape draw.GlyphDrawer, name string) ([]float64, error) {
	var pts errPoints
	var vals []float64
	for _, g := range groups {
		s := stat(g)
		if s.N == 0 {
			continue
		}
		xy, e := clippedCI(x(g), s)
		pts.XYs, pts.YErrors = append(pts.XYs, xy), append(pts.YErrors, e)
		vals = append(vals, xy.Y-e.Low, xy.Y+e.High)
	}
	if len(pts.XYs) == 0 {
		return nil, nil
	}
	sort.Sort(byX(pts))
	if err := addLine(f, pts.XYs, c, false, nil, ""); err != nil {
		return nil, err
	}
	return vals, addErrPoints(f, pts, c, shape, name)
}

type byX errPoints

func (b byX) Len() int           { return len(b.XYs) }
func (b byX) Less(i, j int) bool { return b.XYs[i].X < b.XYs[j].X }
func (b byX) Swap(i, j int) {
	b.XYs[i], b.XYs[j] = b.XYs[j], b.XYs[i]
	b.YErrors[i], b.YErrors[j] = b.YErrors[j], b.YErrors[i]
}

func analyticCurve(n int, mttr, lo, hi float64) *plotter.Function {
	fn := plotter.NewFunction(func(x float64) float64 { return analyticRate(n, x, mttr) })
	fn.XMin, fn.XMax, fn.Samples = lo, hi, 120
	fn.Color = memberColor(n)
	fn.Width = vg.Points(1)
	fn.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	return fn
}

// bucketLabels names the write latency buckets: "≤1", ..., ">5000" (ms).
func bucketLabels() []string {
	var out []string
	for _, ub := range metrics.LatencyBucketsMs {
		out = append(out, "≤"+strconv.FormatFloat(ub, 'f', -1, 64))
	}
	return append(out, ">"+strconv.FormatFloat(metrics.LatencyBucketsMs[len(metrics.LatencyBucketsMs)-1], 'f', -1, 64))
}

// latencyByMembers merges the write latency histograms of every group per
// member count.
func latencyByMembers(groups []*Group) map[int][]int {
	out := map[int][]int{}
	for _, g := range groups {
		h := out[g.Members]
		if len(h) < len(g.LatencyHist) {
			h = append(h, make([]int, len(g.LatencyHist)-len(h))...)
		}
		for i, n := range g.LatencyHist {
			h[i] += n
		}
		out[g.Members] = h
	}
	return out
}

// LatencyFigure draws the distribution of successful write latencies,
// merged over the runs of each member count, as grouped bars over the
// histogram's (logarithmic) buckets. It returns nil when no run made a
// successful etcd KV write (full-stack and API scenarios run no KV
// workload): no empty plot.
func LatencyFigure(set *Set) (*Figure, error) {
	f := newFigure(PlotLatency, "Write latency distribution (successful writes)",
		"Share of successful writes per latency bucket (milliseconds, upper bounds growing roughly ×2–×2.5), merged over every run of each member count.",
		"write latency, ms (bucket upper bound)", "share of successful writes")
	p := f.Plot
	labels := bucketLabels()
	var ticks plot.ConstantTicks
	for i, l := range labels {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: l})
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = -0.6, float64(len(labels))-0.4
	p.Y.Min = 0
	hists := latencyByMembers(set.Groups())
	ms := memberCounts(set.Groups())
	writes := 0
	for _, h := range hists {
		for _, c := range h {
			writes += c
		}
	}
	if writes == 0 {
		return nil, nil
	}
	if len(series(set.Groups())) > 1 {
		p.Title.Text += "\nall scenarios and profiles pooled"
	}
	bw := 0.8 / float64(len(ms))
	top := 0.0
	for mi, n := range ms {
		h := hists[n]
		total := 0
		for _, c := range h {
			total += c
		}
		r := &rects{}
		for i := range labels {
			v := 0.0
			if i < len(h) && total > 0 {
				v = float64(h[i]) / float64(total)
			}
			x0 := float64(i) - 0.4 + bw*float64(mi)
			r.add(x0, 0, x0+bw*0.92, v, memberColor(n))
			top = max(top, v)
		}
		p.Add(r)
		f.Legend.Add(fmt.Sprintf("%s (%s)", membersLabel(n), plural(total, "write")), &swatch{memberColor(n)})
	}
	p.Y.Max = max(top*1.08, 0.05)
	return f, nil
}

// rects is a plotter of filled rectangles in data coordinates.
type rects struct {
	rs []rect
}

type rect struct {
	x0, y0, x1, y1 float64
	c              color.Color
}

func (r *rects) add(x0, y0, x1, y1 float64, c color.Color) {
	r.rs = append(r.rs, rect{x0, y0, x1, y1, c})
}

// Plot implements plot.Plotter.
func (r *rects) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, q := range r.rs {
		x0, x1, y0, y1 := trX(q.x0), trX(q.x1), trY(q.y0), trY(q.y1)
		if x1-x0 < vg.Points(0.6) {
			x1 = x0 + vg.Points(0.6) // keep short spans visible
		}
		pts := c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		c.FillPolygon(q.c, pts)
	}
}

// DataRange implements plot.DataRanger.
func (r *rects) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, q := range r.rs {
		xmin, xmax = min(xmin, q.x0), max(xmax, q.x1)
		ymin, ymax = min(ymin, q.y0), max(ymax, q.y1)
	}
	return
}

// swatch is a legend thumbnail: a filled box.
type swatch struct{ c color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s *swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	pad := (r.Max.Y - r.Min.Y) * 0.15
	c.FillPolygon(s.c, []vg.Point{{X: r.Min.X, Y: r.Min.Y + pad}, {X: r.Max.X, Y: r.Min.Y + pad}, {X: r.Max.X, Y: r.Max.Y - pad}, {X: r.Min.X, Y: r.Max.Y - pad}})
}

// Colors of the timeline.
var (
	colUp        = rgb(0xcc, 0xcc, 0xcc)
	colDown      = rgb(0xd6, 0x27, 0x28)
	colPaused    = rgb(0xf2, 0xb7, 0x01)
	colLeader    = rgb(0x1f, 0x77, 0xb4)
	colPartition = color.NRGBA{0xff, 0x9f, 0x40, 0x60}
	colWriteOK   = rgb(0x2c, 0xa0, 0x2c)
	colWriteFail = rgb(0x94, 0x67, 0xbd)
)

// TimelineFigure draws one run: a row per member (up in grey, down in red,
// paused in yellow, leader in blue), partition windows shaded, and the
// writes that ended in each small time slice, succeeded (green) or failed
// or unknown (purple). A title too wide for the plot is wrapped.
func TimelineFigure(tl *Timeline, r *scenarios.Result) (*Figure, error) {
	title := fmt.Sprintf("Timeline of %s, %d members, seed %d", r.Scenario, r.Members, r.Seed)
	if r.Profile != nil {
		title += ", " + r.Profile.String()
	}
	if !r.OK {
		title += " (FAILED)"
	}
	f := newFigure(PlotTimeline, title,
		"One run, re-run from its seed: each member's row shows when it was down (red), paused (yellow) or the Raft leader (blue); orange bands are windows with a network partition; the bottom rows mark writes that ended in each slice of time, succeeded (green) or failed or timed out (purple).",
		"virtual seconds", "")
	n := len(tl.Members)
	f.H = vg.Length(6+0.9*float64(n)) * vg.Centimeter
	p := f.Plot
	p.X.Min, p.X.Max = 0, max(tl.End, 1)
	p.Y.Min, p.Y.Max = -0.6, float64(n)+1.6
	rowOf := func(i int) float64 { return float64(n+1) - float64(i) } // etcd-1 on top
	ticks := plot.ConstantTicks{{Value: 0, Label: "writes failed"}, {Value: 1, Label: "writes ok"}}
	if len(tl.Writes) == 0 {
		// A run without a KV workload: empty rows would read as no write
		// succeeding.
		ticks = plot.ConstantTicks{{Value: 0.5, Label: "no KV writes"}}
	}
	for i, m := range tl.Members {
		ticks = append(ticks, plot.Tick{Value: rowOf(i), Label: m.Name})
	}
	p.Y.Tick.Marker = ticks
	bands := &rects{}
	for _, iv := range tl.Partitions {
		bands.add(iv.From, -0.6, iv.To, float64(n)+1.6, colPartition)
	}
	rows := &rects{}
	for i, m := range tl.Members {
		y := rowOf(i)
		rows.add(0, y-0.06, tl.End, y+0.06, colUp)
		for _, iv := range m.Down {
			rows.add(iv.From, y-0.3, iv.To, y+0.3, colDown)
		}
		for _, iv := range m.Paused {
			rows.add(iv.From, y-0.3, iv.To, y+0.3, colPaused)
		}
		for _, iv := range m.Leader {
			rows.add(iv.From, y-0.18, iv.To, y+0.18, colLeader)
		}
	}
	// Writes: one mark per slice of time that has any, so that the file
	// stays small however many writes a run made.
	slices := 600
	w := max(tl.End, 1) / float64(slices)
	ok := make([]bool, slices+1)
	bad := make([]bool, slices+1)
	for _, m := range tl.Writes {
		i := min(int(m.At/w), slices)
		if m.OK {
			ok[i] = true
		} else {
			bad[i] = true
		}
	}
	writes := &rects{}
	for i := 0; i <= slices; i++ {
		x := float64(i) * w
		if ok[i] {
			writes.add(x, 0.7, x+w*0.7, 1.3, colWriteOK)
		}
		if bad[i] {
			writes.add(x, -0.3, x+w*0.7, 0.3, colWriteFail)
		}
	}
	p.Add(bands, rows, writes)
	f.Legend.Add("member down", &swatch{colDown})
	f.Legend.Add("member paused", &swatch{colPaused})
	f.Legend.Add("Raft leader", &swatch{colLeader})
	f.Legend.Add("partition", &swatch{colPartition})
	if len(tl.Writes) > 0 {
		f.Legend.Add("write ok", &swatch{colWriteOK})
		f.Legend.Add("write failed", &swatch{colWriteFail})
	}
	return f, nil
}

// messageFigure stands in for a plot that could not be drawn.
func messageFigure(name, title, msg string) *Figure {
	f := newFigure(name, title, msg, "", "")
	f.Plot.HideAxes()
	f.Plot.Title.Text = title + "\n" + msg
	f.H = 4 * vg.Centimeter
	return f
}

// Figures builds every plot of the set, in PlotNames order, with the
// request success plot after the quorum's fault-rate plot when runs
// measured request_success. The timeline re-runs one world (see
// Set.Timeline); if that fails, its figure says why.
func Figures(set *Set) ([]*Figure, error) {
	var out []*Figure
	for _, mk := range []func(*Set) (*Figure, error){AvailabilityFigure, FaultRateFigure, RequestSuccessFigure, LatencyFigure} {
		f, err := mk(set)
		if err != nil {
			return nil, err
		}
		if f != nil {
			out = append(out, f)
		}
	}
	tl, r, err := set.Timeline()
	var f *Figure
	if err == nil {
		f, err = TimelineFigure(tl, r)
	}
	if err != nil {
		f = messageFigure(PlotTimeline, "Timeline", "could not re-run the run: "+err.Error())
	}
	return append(out, f), nil
}

// WritePlots writes every plot into dir as NAME.png and NAME.svg and
// returns the paths written. An optional plot that the set does not draw
// is removed from dir, so that a report written over an older one shows
// no stale plot.
func WritePlots(dir string, set *Set) ([]string, error) {
	figs, err := Figures(set)
	if err != nil {
		return nil, err
	}
	drawn := map[string]bool{}
	for _, f := range figs {
		drawn[f.Name] = true
	}
	for _, name := range OptionalPlotNames {
		if drawn[name] {
			continue
		}
		for _, format := range []string{"png", "svg"} {
			if err := os.Remove(filepath.Join(dir, name+"."+format)); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
	}
	var paths []string
	for _, f := range figs {
		for _, format := range []string{"png", "svg"} {
			b, err := f.Render(format)
			if err != nil {
				return paths, fmt.Errorf("plot %s: %v", f.Name, err)
			}
			if format == "svg" {
				b = fixSVGFonts(b)
			}
			path := filepath.Join(dir, f.Name+"."+format)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return paths, err
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

var fontFamily = regexp.MustCompile(`font-family:([^;"]+);`)

// fixSVGFonts adds a generic fallback to the SVG's font families, so that
// a viewer without the Liberation fonts still draws the text in the same
// style; no font is embedded or linked.
func fixSVGFonts(b []byte) []byte {
	return fontFamily.ReplaceAllFunc(b, func(m []byte) []byte {
		fam := string(fontFamily.FindSubmatch(m)[1])
		generic := "sans-serif"
		switch {
		case strings.Contains(fam, "Mono"):
			generic = "monospace"
		case strings.Contains(fam, "Serif") && !strings.Contains(fam, "Sans"):
			generic = "serif"
		}
		return []byte("font-family:'" + fam + "'," + generic + ";")
	})
}
