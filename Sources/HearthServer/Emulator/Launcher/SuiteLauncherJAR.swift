// The JAR a user points firebase-tools' FIRESTORE_EMULATOR_BINARY_PATH at. firebase-tools
// always runs `java … -jar <that path> <the official emulator's flags>` (downloadableEmulators.ts),
// so Hearth answers with a JAR whose only job is to run `hearth serve <flags>`. Hearth writes
// it itself (class files and zip, no javac, no third-party code), so a Java runtime is all
// the user needs. docs/emulator-suite.md explains the process tree it makes.

/// The launcher JAR's bytes. Its two classes behave as this Java would:
///
///     public class HearthLauncher {
///       public static void main(String[] args) throws Exception {
///         String bin = System.getenv("HEARTH_BINARY");
///         if (bin == null) bin = "<hearthBinary>";
///         String[] cmd = new String[args.length + 5];
///         cmd[0] = bin; cmd[1] = "serve";
///         System.arraycopy(args, 0, cmd, 2, args.length);
///         cmd[args.length + 2] = "--console-port";
///         cmd[args.length + 3] = "0";
///         cmd[args.length + 4] = "--exit-on-stdin-eof";
///         HearthLauncherHook hook = new HearthLauncherHook();
///         Runtime.getRuntime().addShutdownHook(hook);   // before the child exists: no window
///         ProcessBuilder pb = new ProcessBuilder(cmd);
///         pb.redirectOutput(ProcessBuilder.Redirect.INHERIT);
///         pb.redirectError(ProcessBuilder.Redirect.INHERIT);
///         hook.p = pb.start();                  // stdin stays a pipe the JVM holds
///         System.exit(hook.p.waitFor());
///       }
///     }
///     class HearthLauncherHook extends Thread {  // SIGINT/SIGTERM, or System.exit above
///       volatile Process p;
///       public void run() {
///         for (int i = 0; p == null && i < 500; i++) Thread.sleep(10);  // a signal during start()
///         if (p == null) return;
///         p.destroy(); Runtime.getRuntime().halt(p.waitFor());
///       }
///     }
///
/// (A signal before `p` is set makes the hook fail on null and the JVM exit with the
/// signal's status; Hearth, if it was started, then sees its stdin close.)
///
/// Why each part: `--console-port 0` because the Emulator UI that firebase-tools starts
/// after Firestore wants port 4000, Hearth's console default (its address is in
/// firestore-debug.log); the hook turns the JVM's SIGINT/SIGTERM into SIGTERM for Hearth (which
/// exports on exit and stops with 0) and exits with Hearth's status; the stdin pipe is how
/// Hearth learns that the JVM died even of SIGKILL (no hook runs then, but the kernel closes
/// the pipe and `--exit-on-stdin-eof` sees end of file — portable, unlike Linux's
/// PDEATHSIG); `waitFor` makes the JVM exit when Hearth does, with its status (128 + the
/// signal when Hearth was killed, so never 0).
public enum SuiteLauncherJAR {
    static let mainClass = "HearthLauncher"
    static let hookClass = "HearthLauncherHook"
    /// The flag the launcher appends last: Hearth exits when its stdin (the JVM's pipe) closes.
    public static let stdinFlag = "--exit-on-stdin-eof"
    /// The flags it appends after firebase-tools' (whose flags never name the console).
    static let appended = ["--console-port", "0", stdinFlag]
    /// The environment variable that, when set, names the hearth binary instead of the path
    /// written into the JAR (a moved or reinstalled hearth, a test's stand-in).
    public static let binaryEnvironmentVariable = "HEARTH_BINARY"

    /// The JAR for the hearth binary at `hearthBinary` (an absolute path).
    public static func bytes(hearthBinary: String) -> [UInt8] {
        let manifest = "Manifest-Version: 1.0\r\nMain-Class: \(mainClass)\r\nCreated-By: hearth suite-launcher\r\n\r\n"
        var zip = StoredZipWriter()
        zip.add("META-INF/MANIFEST.MF", Array(manifest.utf8))
        zip.add("\(mainClass).class", mainClassFile(hearthBinary: hearthBinary))
        zip.add("\(hookClass).class", hookClassFile())
        return zip.bytes()
    }

    static func mainClassFile(hearthBinary: String) -> [UInt8] {
        var cf = ClassFileWriter(name: mainClass)
        let redirect = "java/lang/ProcessBuilder$Redirect"
        cf.addMethod("main", "([Ljava/lang/String;)V", access: ClassFileWriter.accPublic | ClassFileWriter.accStatic,
                     maxStack: 6, maxLocals: 5) { code, cf in
            // locals: 0 args, 1 bin, 2 cmd, 3 pb, 4 p
            code.ldc(cf.string(binaryEnvironmentVariable))
            code.op(.invokestatic, cf.methodRef("java/lang/System", "getenv", "(Ljava/lang/String;)Ljava/lang/String;"))
            code.astore(1)
            code.aload(1)
            let haveBinary = code.branch(.ifnonnull)
            code.ldc(cf.string(hearthBinary))
            code.astore(1)
            code.land(haveBinary)
            code.aload(0); code.op(.arraylength); code.iconst(2 + appended.count); code.op(.iadd)
            code.op(.anewarray, cf.classRef("java/lang/String"))
            code.astore(2)
            code.aload(2); code.iconst(0); code.aload(1); code.op(.aastore)
            code.aload(2); code.iconst(1); code.ldc(cf.string("serve")); code.op(.aastore)
            code.aload(0); code.iconst(0); code.aload(2); code.iconst(2); code.aload(0); code.op(.arraylength)
            code.op(.invokestatic, cf.methodRef("java/lang/System", "arraycopy", "(Ljava/lang/Object;ILjava/lang/Object;II)V"))
            for (i, flag) in appended.enumerated() {
                code.aload(2); code.aload(0); code.op(.arraylength); code.iconst(2 + i); code.op(.iadd)
                code.ldc(cf.string(flag)); code.op(.aastore)
            }
            let hookField = cf.fieldRef(hookClass, "p", "Ljava/lang/Process;")
            code.op(.new, cf.classRef(hookClass)); code.op(.dup)
            code.op(.invokespecial, cf.methodRef(hookClass, "<init>", "()V"))
            code.astore(4)
            code.op(.invokestatic, cf.methodRef("java/lang/Runtime", "getRuntime", "()Ljava/lang/Runtime;"))
            code.aload(4)
            code.op(.invokevirtual, cf.methodRef("java/lang/Runtime", "addShutdownHook", "(Ljava/lang/Thread;)V"))
            code.op(.new, cf.classRef("java/lang/ProcessBuilder")); code.op(.dup); code.aload(2)
            code.op(.invokespecial, cf.methodRef("java/lang/ProcessBuilder", "<init>", "([Ljava/lang/String;)V"))
            code.astore(3)
            for method in ["redirectOutput", "redirectError"] {
                code.aload(3)
                code.op(.getstatic, cf.fieldRef(redirect, "INHERIT", "L\(redirect);"))
                code.op(.invokevirtual, cf.methodRef("java/lang/ProcessBuilder", method, "(L\(redirect);)Ljava/lang/ProcessBuilder;"))
                code.op(.pop)
            }
            code.aload(4); code.aload(3)
            code.op(.invokevirtual, cf.methodRef("java/lang/ProcessBuilder", "start", "()Ljava/lang/Process;"))
            code.op(.putfield, hookField)
            code.aload(4)
            code.op(.getfield, hookField)
            code.op(.invokevirtual, cf.methodRef("java/lang/Process", "waitFor", "()I"))
            code.op(.invokestatic, cf.methodRef("java/lang/System", "exit", "(I)V"))
            code.op(.returnVoid)
        }
        return cf.bytes()
    }

    static func hookClassFile() -> [UInt8] {
        var cf = ClassFileWriter(name: hookClass, superClass: "java/lang/Thread", accessFlags: ClassFileWriter.accSuper)
        // volatile: set by the main thread, read by the hook's.
        cf.addField("p", "Ljava/lang/Process;", access: ClassFileWriter.accVolatile)
        cf.addMethod("<init>", "()V", access: 0, maxStack: 1, maxLocals: 1) { code, cf in
            code.aload(0)
            code.op(.invokespecial, cf.methodRef("java/lang/Thread", "<init>", "()V"))
            code.op(.returnVoid)
        }
        cf.addMethod("run", "()V", access: ClassFileWriter.accPublic, maxStack: 2, maxLocals: 2) { code, cf in
            // A signal can come while the main thread is still in ProcessBuilder.start(): Hearth
            // may already be serving (it runs as soon as it is exec'd). Wait for `p`, 10 ms at
            // a time, at most 5 s (a start that failed never sets it: then there is nothing to stop).
            code.iconst(0)
            code.istore(1)
            let check = code.position
            code.aload(0)
            code.op(.getfield, cf.fieldRef(hookClass, "p", "Ljava/lang/Process;"))
            let ready = code.branch(.ifnonnull)
            code.iload(1)
            code.sipush(500)
            let givenUp = code.branch(.ifIcmpge)
            code.iinc(1, 1)
            code.bipush(10)
            code.op(.i2l)
            code.op(.invokestatic, cf.methodRef("java/lang/Thread", "sleep", "(J)V"))
            code.goBack(to: check)
            code.land(givenUp)
            code.op(.returnVoid)
            code.land(ready)
            code.aload(0)
            code.op(.getfield, cf.fieldRef(hookClass, "p", "Ljava/lang/Process;"))
            code.op(.invokevirtual, cf.methodRef("java/lang/Process", "destroy", "()V"))
            code.op(.invokestatic, cf.methodRef("java/lang/Runtime", "getRuntime", "()Ljava/lang/Runtime;"))
            code.aload(0)
            code.op(.getfield, cf.fieldRef(hookClass, "p", "Ljava/lang/Process;"))
            code.op(.invokevirtual, cf.methodRef("java/lang/Process", "waitFor", "()I"))
            code.op(.invokevirtual, cf.methodRef("java/lang/Runtime", "halt", "(I)V"))
            code.op(.returnVoid)
        }
        return cf.bytes()
    }
}
