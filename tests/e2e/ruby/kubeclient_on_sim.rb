# Ruby's kubeclient (Debian's ruby-kubeclient) against `hpaplus sim`, as its users drive it:
# discovery, create, get, list with selectors, watch (through the /watch/ paths), update, patch,
# scale, delete. Usage: ruby kubeclient_on_sim.rb KUBECONFIG. Prints "ok" on success; a failed
# check raises with what it expected.
require 'kubeclient'

def check(what, ok)
  raise "check failed: #{what}" unless ok
end

config = Kubeclient::Config.read(ARGV.fetch(0))
context = config.context
options = { ssl_options: context.ssl_options, auth_options: context.auth_options }
core = Kubeclient::Client.new(context.api_endpoint, 'v1', **options)
apps = Kubeclient::Client.new("#{context.api_endpoint}/apis/apps", 'v1', **options)

# Discovery: the methods exist once the server listed its resources.
core.discover
apps.discover
check('discovered get_pods', core.respond_to?(:get_pods))
check('discovered watch_config_maps', core.respond_to?(:watch_config_maps))
check('discovered get_deployments', apps.respond_to?(:get_deployments))

# Create, get, list with a label selector.
created = core.create_config_map(Kubeclient::Resource.new(
  metadata: { name: 'ruby-cm', namespace: 'default', labels: { app: 'ruby' } },
  data: { greeting: 'hello' }
))
check('created uid', !created.metadata.uid.to_s.empty?)
got = core.get_config_map('ruby-cm', 'default')
check('got data', got.data.greeting == 'hello')
listed = core.get_config_maps(namespace: 'default', label_selector: 'app=ruby')
check('listed one', listed.size == 1 && listed.first.metadata.name == 'ruby-cm')

# Watch from the version we read: the change arrives as MODIFIED.
watcher = core.watch_config_maps(namespace: 'default', name: 'ruby-cm',
                                 resource_version: got.metadata.resourceVersion)
seen = nil
writer = Thread.new do
  sleep 0.3
  got.data.greeting = 'bye'
  core.update_config_map(got)
end
watcher.each do |notice|
  next unless notice.type == 'MODIFIED'
  seen = notice.object.data.greeting
  watcher.finish
  break
end
writer.join
check("watched the change (#{seen.inspect})", seen == 'bye')

# Patch (strategic merge), then delete: the object is gone.
core.patch_config_map('ruby-cm', { data: { extra: 'x' } }, 'default')
check('patched', core.get_config_map('ruby-cm', 'default').data.extra == 'x')
core.delete_config_map('ruby-cm', 'default')
begin
  core.get_config_map('ruby-cm', 'default')
  check('deleted', false)
rescue Kubeclient::ResourceNotFoundError
  # expected
end

# A Deployment scaled through a patch, its pods listed by their label.
apps.create_deployment(Kubeclient::Resource.new(
  metadata: { name: 'ruby-web', namespace: 'default' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'ruby-web' } },
    template: { metadata: { labels: { app: 'ruby-web' } },
                spec: { containers: [{ name: 'app', image: 'nginx' }] } }
  }
))
apps.patch_deployment('ruby-web', { spec: { replicas: 2 } }, 'default')
# Both created and bound to the node (the scheduler's step comes a moment after the create).
pods = []
100.times do
  pods = core.get_pods(namespace: 'default', label_selector: 'app=ruby-web')
  break if pods.size == 2 && pods.all? { |p| !p.spec.nodeName.to_s.empty? }
  sleep 0.2
end
check("two pods (#{pods.size})", pods.size == 2)
check('each pod has its node', pods.all? { |p| !p.spec.nodeName.to_s.empty? })
apps.delete_deployment('ruby-web', 'default')
puts 'ok'
