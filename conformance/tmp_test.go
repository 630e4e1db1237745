package conformance

import (
	_ "go.etcd.io/etcd/client/v3"
	_ "go.etcd.io/etcd/server/v3/embed"
	_ "github.com/kubesim/kubesim/nodes/etcd"
)
