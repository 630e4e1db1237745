module github.com/kubesim/kubesim/bench

go 1.26

require github.com/kubesim/kubesim v0.0.0

require (
	go.etcd.io/raft/v3 v3.7.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)

replace github.com/kubesim/kubesim => ../
