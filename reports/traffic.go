package reports

import (
	"gonum.org/v1/plot/vg/draw"

	"github.com/kubesim/kubesim/scenarios"
)

// TrafficStat summarises what the application's users saw in a group's
// runs with traffic: those that made requests and so measured
// request_success (metrics.Traffic; -1 there means no request ended).
type TrafficStat struct {
	Runs int
	// Success is request_success over the runs: the fraction of requests
	// answered with a success in time.
	Success Stat
	// Means over the runs: requests that ended, requests that reached a
	// pod no longer serving (requests_to_terminated) and requests routed
	// to a pod not ready (requests_to_unready).
	Requests, ToTerminated, ToUnready float64
	// LatencyP50Ms and LatencyP99Ms are means over the LatencyRuns runs
	// that had a successful request.
	LatencyP50Ms, LatencyP99Ms float64
	LatencyRuns                int
}

// trafficStat summarises the runs that measured request_success.
func trafficStat(runs []*scenarios.Result) TrafficStat {
	var st TrafficStat
	var ok, req, term, unready, p50, p99 []float64
	for _, r := range runs {
		m := r.Metrics
		s, has := m["request_success"]
		if !has || s < 0 || m["requests"] <= 0 {
			continue
		}
		ok = append(ok, s)
		req = append(req, m["requests"])
		term = append(term, m["requests_to_terminated"])
		unready = append(unready, m["requests_to_unready"])
		if l, has := m["request_latency_p50_ms"]; has && l >= 0 {
			p50 = append(p50, l)
			p99 = append(p99, m["request_latency_p99_ms"])
		}
	}
	st.Runs, st.Success = len(ok), MeanCI(ok)
	st.Requests, st.ToTerminated, st.ToUnready = MeanCI(req).Mean, MeanCI(term).Mean, MeanCI(unready).Mean
	st.LatencyP50Ms, st.LatencyP99Ms, st.LatencyRuns = MeanCI(p50).Mean, MeanCI(p99).Mean, len(p50)
	return st
}

func requestSuccess(g *Group) Stat { return g.Traffic.Success }

// trafficGroups are the groups whose runs measured request_success.
func trafficGroups(groups []*Group) []*Group {
	var out []*Group
	for _, g := range groups {
		if g.Traffic.Runs > 0 {
			out = append(out, g)
		}
	}
	return out
}

// RequestSuccessFigure draws the share of the users' requests that
// succeeded against the fault rate, one line per member count with 95%
// intervals, like the quorum's FaultRateFigure (and with its code), and
// one glyph per scenario when the results hold several. With fewer than two
// fault rates among the runs with traffic (one --faults profile, or the
// scenario's own faults, which have no rate), it draws request success by
// member count instead, one line per series, and its caption says so. It
// returns nil when no run measured request_success: no empty plot.
func RequestSuccessFigure(set *Set) (*Figure, error) {
	groups := trafficGroups(set.Groups())
	if len(groups) == 0 {
		return nil, nil
	}
	f := newFigure(PlotRequestSuccess, "Request success against fault rate", "", "", "requests that succeeded (fraction)")
	p := f.Plot
	var fams []*rateFamily
	for _, fam := range rateFamilies(groups) {
		if len(fams) == 0 || fam.unit == fams[0].unit {
			fams = append(fams, fam)
		}
	}
	if len(fams) > 0 && len(fams[0].rates) >= 2 {
		if len(fams) == 1 {
			p.Title.Text += "\n" + fams[0].name
		}
		p.X.Label.Text = fams[0].unit
		f.Caption = "Measured mean fraction of the application's requests that succeeded (95% CI) at each fault rate in the results, one line per member count"
		if len(fams) > 1 {
			f.Caption += " and one glyph per scenario"
		}
		f.Caption += "."
		vals, err := rateLines(f, fams, requestSuccess)
		if err != nil {
			return nil, err
		}
		availabilityRange(p, vals)
		return f, nil
	}
	p.Title.Text = "Request success by etcd member count"
	p.X.Label.Text = "etcd members"
	f.Caption = "The runs with traffic hold fewer than two fault rates (one --faults profile, or the scenarios' own faults, which have no rate), so this plot shows the measured mean fraction of the application's requests that succeeded (95% CI) by member count instead, one line per series."
	ss := series(groups)
	memberAxis(p, memberCounts(groups))
	short := shortSeriesNames(ss)
	if len(ss) == 1 {
		p.Title.Text += "\n" + ss[0][0].SeriesName()
		short[0] = ""
	}
	members := func(g *Group) float64 { return float64(g.Members) }
	var vals []float64
	for si, s := range ss {
		v, err := addStatLine(f, s, members, requestSuccess, colorAt(si), draw.CircleGlyph{}, short[si])
		if err != nil {
			return nil, err
		}
		vals = append(vals, v...)
	}
	availabilityRange(p, vals)
	return f, nil
}
