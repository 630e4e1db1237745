module github.com/kubesim/kubesim/bench

go 1.26.0

require (
	github.com/kubesim/kubesim v0.0.0
	go.etcd.io/raft/v3 v3.7.0
)

require google.golang.org/protobuf v1.36.11 // indirect

replace github.com/kubesim/kubesim => ../
