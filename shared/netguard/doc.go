// Package netguard keeps connections that a caller's configuration chooses (an MCP server_url, a model provider
// base_url) away from the hosts that hand out the deployment's own credentials: link-local addresses, where the
// EC2 instance metadata service (169.254.169.254, fd00:ec2::254) and the ECS task credentials endpoint
// (169.254.170.2) live. It checks the address actually dialled, after DNS resolution, so a name that resolves to
// such an address is refused too. Loopback and private ranges stay reachable: local servers and self-hosted models
// in the same network are legitimate targets.
package netguard
