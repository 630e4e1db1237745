package docgen

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/internal/fidelity"
)

// fidelityPage renders the fidelity table of package internal/fidelity:
// the pinned versions, the modelled defaults layer by layer, and the known
// divergences.
func fidelityPage() Page {
	b := newPage("fidelity.md", "Fidelity")
	fmt.Fprintf(b, "kubesim models **Kubernetes %s** and **etcd %s** (with go.etcd.io/raft %s, as that etcd uses), the etcd release the conformance module (`conformance/go.mod`) runs against.\n\n",
		fidelity.Kubernetes, fidelity.Etcd, fidelity.Raft)
	b.WriteString("This page is generated from the table in package `internal/fidelity`. Each default pairs the value kubesim's code uses, read from the code's own constant or default, with the real value and where the real one is defined. ")
	b.WriteString("`TestDefaultsMatchReal` (internal/fidelity) fails when a constant no longer equals its real value, naming the entry and its source; `TestDocsUpToDate` (internal/docgen) fails when this page no longer says what the table says (`go generate ./internal/docgen` rewrites it). ")
	b.WriteString("The last column names the kubesim test that asserts the value, where one does. A source that could not be confirmed says so.\n\n")
	b.WriteString("## Defaults\n")
	layer := ""
	for _, e := range fidelity.Defaults() {
		if e.Layer != layer {
			layer = e.Layer
			fmt.Fprintf(b, "\n### %s\n\n", layer)
			b.tableHead("default", "value", "real source", "in kubesim", "asserted by")
		}
		b.row(cell(e.Name), cell(e.Real), cell(e.Source), "`"+cell(e.Where)+"`", tests(e.Test))
	}
	b.WriteString("\n## Known divergences\n\nWhere kubesim knowingly does something else than the pinned versions, and what a user sees because of it.\n\n")
	b.tableHead("what", "kubesim", "the pinned versions", "consequence", "in kubesim")
	for _, d := range fidelity.Divergences() {
		b.row(cell(d.Name), cell(d.Kubesim), cell(d.Real), cell(d.Consequence), cell(d.Where))
	}
	return b.done()
}

// tests renders the Test field: each "package TestName" as code.
func tests(s string) string {
	if s == "" {
		return ""
	}
	parts := strings.Split(s, ", ")
	for i, p := range parts {
		parts[i] = "`" + p + "`"
	}
	return strings.Join(parts, ", ")
}
