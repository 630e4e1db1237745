// Package catalogue is kubesim's catalogue of named scenarios, a user of
// package scenarios' registry like any other: when it initialises it
// registers every scenario with scenarios.RegisterCatalogue, in catalogue
// order (the order `kubesim scenarios` and docs/scenarios.md list them,
// and the order of the trace pins), so that everything that takes a
// scenario by name finds them. A binary or test sees the catalogue only if
// it imports this package:
//
//	import _ "github.com/kubesim/kubesim/catalogue"
//
// It also holds the operators of its scenarios: disaster recovery and
// backups, membership changes, the API servers' --etcd-servers roll, the
// ownership workloads.
package catalogue

import "github.com/kubesim/kubesim/scenarios"

func init() {
	for _, spec := range specs() {
		if err := scenarios.RegisterCatalogue(spec); err != nil {
			panic(err)
		}
	}
}
