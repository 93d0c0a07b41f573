// LoopbackDynamoDBLocal starts DynamoDB Local listening on one address only (Baton's local stack binds it to
// 127.0.0.1, so other hosts cannot reach its unauthenticated tables). DynamoDB Local's own -port option listens on
// every interface and it has no option for the address, so this program builds the server exactly as the jar's
// command line does, sets the host of its HTTP connector, and starts it.
//
// Usage: java -cp DynamoDBLocal.jar:DynamoDBLocal_lib/* LoopbackDynamoDBLocal <host> <DynamoDB Local options…>
// Package ddblocal compiles it once per Java source and jar (docs/internals.md §L2).

import java.lang.reflect.Field;
import java.util.Arrays;

import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public final class LoopbackDynamoDBLocal {
    private LoopbackDynamoDBLocal() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: LoopbackDynamoDBLocal <host> [DynamoDB Local options]");
            System.exit(2);
        }
        String host = args[0];
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(Arrays.copyOfRange(args, 1, args.length));
        Field field = DynamoDBProxyServer.class.getDeclaredField("server");
        field.setAccessible(true);
        Server server = (Server) field.get(proxy);
        int connectors = 0;
        for (Connector c : server.getConnectors()) {
            if (!(c instanceof ServerConnector)) {
                throw new IllegalStateException("unexpected connector " + c.getClass().getName());
            }
            ((ServerConnector) c).setHost(host);
            connectors++;
        }
        if (connectors == 0) {
            throw new IllegalStateException("DynamoDB Local has no HTTP connector to bind");
        }
        proxy.start();
        proxy.join();
    }
}
