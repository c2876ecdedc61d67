import Foundation
import HearthServer

/// `hearth serve --websocket_port N` (also `--websocket-port`): the official emulator's flag
/// for the Emulator UI's Requests feed, taken out of the serve arguments before the serve
/// command parses them; the feed's port opens beside the server once it starts, on the same
/// host. A stop-gap the serve command's own flag parsing replaces when it learns the flag.
enum WebSocketPortFlag {
    /// The arguments without the flag, and its port (nil when absent). A bad value is
    /// reported and exits with status 2, as the serve command does for its own flags.
    static func extract(_ args: [String]) -> ([String], Int?) {
        var rest: [String] = []
        var port: Int?
        var i = 0
        while i < args.count {
            let a = args[i]
            var value: String?
            if a == "--websocket_port" || a == "--websocket-port" {
                guard i + 1 < args.count else { fail("\(a) needs a port number") }
                value = args[i + 1]
                i += 2
            } else if a.hasPrefix("--websocket_port=") || a.hasPrefix("--websocket-port=") {
                value = String(a.split(separator: "=", maxSplits: 1)[1])
                i += 1
            } else {
                rest.append(a)
                i += 1
                continue
            }
            guard let v = value, let p = Int(v), (0...65535).contains(p) else { fail("--websocket_port: '\(value ?? "")' is not a port number") }
            port = p
        }
        return (rest, port)
    }

    /// Opens the feed beside every server this process starts.
    static func attach(port: Int) {
        EmulatorServerStartObservers.add { server in
            do {
                let feed = try RequestFeedServer(host: server.host, port: port, state: server.state,
                                                 limits: RequestFeedServer.limits(like: server.limits),
                                                 webSocketLimits: RequestFeedServer.webSocketLimits(like: server.limits))
                server.onStop { feed.stop() }
                FileHandle.standardError.write(Data("Requests feed (Emulator UI): ws://\(feed.host):\(feed.port)/requests\n".utf8))
            } catch {
                FileHandle.standardError.write(Data("hearth serve: cannot open the Requests feed on port \(port): \(error)\n".utf8))
            }
        }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("hearth serve: \(message)\n".utf8))
        exit(2)
    }
}
