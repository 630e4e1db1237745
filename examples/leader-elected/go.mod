module github.com/kubesim/kubesim/examples/leader-elected

go 1.26.0

require (
	github.com/kubesim/kubesim v0.0.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/anishathalye/porcupine v1.3.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

replace github.com/kubesim/kubesim => ../..
