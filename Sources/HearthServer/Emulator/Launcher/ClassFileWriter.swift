// A tiny Java class-file assembler: just what the Suite launcher's two classes need (a
// constant pool, fields, methods with a Code attribute). Version 49 (Java 5) is written on
// purpose: it needs no StackMapTable (the JVM verifies it by type inference), so the
// bytecode can be written by hand, and every JVM since (17 and 21 included) still loads it.
// No exception tables, no invokedynamic: the launcher has neither.

/// One class file being written. Constants are pooled as they are asked for.
struct ClassFileWriter {
    /// Class-file version 49.0: Java 5, the newest one without StackMapTable frames.
    static let majorVersion: UInt16 = 49

    private(set) var pool: [[UInt8]] = []
    private var poolIndex: [[UInt8]: UInt16] = [:]
    private var fields: [[UInt8]] = []
    private var methods: [[UInt8]] = []
    let thisClass: String
    let superClass: String
    let accessFlags: UInt16

    static let accPublic: UInt16 = 0x0001, accStatic: UInt16 = 0x0008, accSuper: UInt16 = 0x0020, accVolatile: UInt16 = 0x0040

    init(name: String, superClass: String = "java/lang/Object", accessFlags: UInt16 = accPublic | accSuper) {
        thisClass = name
        self.superClass = superClass
        self.accessFlags = accessFlags
    }

    // MARK: Constant pool

    private mutating func constant(_ entry: [UInt8]) -> UInt16 {
        if let i = poolIndex[entry] { return i }
        pool.append(entry)
        let i = UInt16(pool.count)  // 1-based; none of ours is a long or double (two slots)
        poolIndex[entry] = i
        return i
    }

    mutating func utf8(_ s: String) -> UInt16 {
        let bytes = Self.modifiedUTF8(s)
        return constant([1] + Self.u16(UInt16(bytes.count)) + bytes)
    }

    mutating func classRef(_ name: String) -> UInt16 {
        let n = utf8(name)
        return constant([7] + Self.u16(n))
    }

    mutating func string(_ s: String) -> UInt16 {
        let n = utf8(s)
        return constant([8] + Self.u16(n))
    }

    private mutating func nameAndType(_ name: String, _ descriptor: String) -> UInt16 {
        let n = utf8(name), d = utf8(descriptor)
        return constant([12] + Self.u16(n) + Self.u16(d))
    }

    mutating func fieldRef(_ owner: String, _ name: String, _ descriptor: String) -> UInt16 {
        let c = classRef(owner), nt = nameAndType(name, descriptor)
        return constant([9] + Self.u16(c) + Self.u16(nt))
    }

    mutating func methodRef(_ owner: String, _ name: String, _ descriptor: String) -> UInt16 {
        let c = classRef(owner), nt = nameAndType(name, descriptor)
        return constant([10] + Self.u16(c) + Self.u16(nt))
    }

    // MARK: Members

    mutating func addField(_ name: String, _ descriptor: String, access: UInt16 = 0) {
        let n = utf8(name), d = utf8(descriptor)
        fields.append(Self.u16(access) + Self.u16(n) + Self.u16(d) + Self.u16(0))
    }

    /// A method whose body `code` builds; `maxStack` and `maxLocals` are the caller's count
    /// (the verifier rejects the class when they are too small, so a mistake cannot pass).
    mutating func addMethod(_ name: String, _ descriptor: String, access: UInt16, maxStack: UInt16, maxLocals: UInt16,
                            code build: (inout Code, inout ClassFileWriter) -> Void) {
        var code = Code()
        build(&code, &self)
        let n = utf8(name), d = utf8(descriptor), codeName = utf8("Code")
        // Code attribute: max_stack, max_locals, code, no exception table, no attributes.
        var body = Self.u16(maxStack) + Self.u16(maxLocals) + Self.u32(UInt32(code.bytes.count)) + code.bytes
        body += Self.u16(0) + Self.u16(0)
        methods.append(Self.u16(access) + Self.u16(n) + Self.u16(d) + Self.u16(1)
                       + Self.u16(codeName) + Self.u32(UInt32(body.count)) + body)
    }

    /// The class file's bytes.
    mutating func bytes() -> [UInt8] {
        let this = classRef(thisClass), sup = classRef(superClass)
        var out: [UInt8] = [0xCA, 0xFE, 0xBA, 0xBE] + Self.u16(0) + Self.u16(Self.majorVersion)
        out += Self.u16(UInt16(pool.count + 1))
        for entry in pool { out += entry }
        out += Self.u16(accessFlags) + Self.u16(this) + Self.u16(sup) + Self.u16(0)  // no interfaces
        out += Self.u16(UInt16(fields.count)) + fields.flatMap { $0 }
        out += Self.u16(UInt16(methods.count)) + methods.flatMap { $0 }
        out += Self.u16(0)  // no class attributes
        return out
    }

    // MARK: Bytecode

    /// A method body: the opcodes the launcher uses, named as the JVM specification names them.
    struct Code {
        private(set) var bytes: [UInt8] = []

        mutating func op(_ opcode: Opcode) { bytes.append(opcode.rawValue) }
        mutating func op(_ opcode: Opcode, _ index: UInt16) { bytes.append(opcode.rawValue); bytes += u16(index) }
        mutating func aload(_ local: UInt8) {
            if local < 4 { bytes.append(0x2A + local) } else { bytes += [0x19, local] }
        }
        mutating func astore(_ local: UInt8) {
            if local < 4 { bytes.append(0x4B + local) } else { bytes += [0x3A, local] }
        }
        mutating func iconst(_ n: Int) {
            precondition((0...5).contains(n), "iconst_\(n) does not exist")
            bytes.append(0x03 + UInt8(n))
        }
        /// `ldc` with a one-byte index, `ldc_w` past 255.
        mutating func ldc(_ index: UInt16) {
            if index <= 0xFF { bytes += [0x12, UInt8(index)] } else { bytes.append(0x13); bytes += u16(index) }
        }
        /// A forward branch whose target is set later with `land(_:)`; returns its position.
        mutating func branch(_ opcode: Opcode) -> Int {
            bytes.append(opcode.rawValue)
            bytes += [0, 0]
            return bytes.count - 3
        }
        /// Points the branch at `at` to the next instruction written.
        mutating func land(_ at: Int) {
            let offset = UInt16(bitPattern: Int16(bytes.count - at))
            bytes[at + 1] = UInt8(offset >> 8)
            bytes[at + 2] = UInt8(offset & 0xFF)
        }
        /// Where the next instruction goes (a target for `goBack(to:)`).
        var position: Int { bytes.count }
        /// `goto` an earlier instruction.
        mutating func goBack(to target: Int) {
            let offset = UInt16(bitPattern: Int16(target - bytes.count))
            bytes.append(Opcode.goto.rawValue)
            bytes += u16(offset)
        }
        /// `sipush`: an int constant of 16 bits.
        mutating func sipush(_ n: Int16) { bytes.append(0x11); bytes += u16(UInt16(bitPattern: n)) }
        /// `bipush`: a small int constant.
        mutating func bipush(_ n: Int8) { bytes += [0x10, UInt8(bitPattern: n)] }
        /// `iinc`: adds `n` to int local `local`.
        mutating func iinc(_ local: UInt8, _ n: Int8) { bytes += [0x84, local, UInt8(bitPattern: n)] }
        mutating func istore(_ local: UInt8) { precondition(local < 4); bytes.append(0x3B + local) }
        mutating func iload(_ local: UInt8) { precondition(local < 4); bytes.append(0x1A + local) }
    }

    enum Opcode: UInt8 {
        case iadd = 0x60, aastore = 0x53, pop = 0x57, dup = 0x59, arraylength = 0xBE
        case ifnonnull = 0xC7, returnVoid = 0xB1, goto = 0xA7, ifIcmpge = 0xA2, i2l = 0x85
        case getstatic = 0xB2, getfield = 0xB4, putfield = 0xB5
        case invokevirtual = 0xB6, invokespecial = 0xB7, invokestatic = 0xB8
        case new = 0xBB, anewarray = 0xBD
    }

    // MARK: Encoding

    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    /// The JVM's "modified UTF-8": NUL as two bytes, characters past the BMP as two 3-byte
    /// surrogates (a path may hold either).
    static func modifiedUTF8(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        for unit in s.utf16 {
            switch unit {
            case 0x0001...0x007F: out.append(UInt8(unit))
            case 0x0000, 0x0080...0x07FF: out += [0xC0 | UInt8(unit >> 6), 0x80 | UInt8(unit & 0x3F)]
            default: out += [0xE0 | UInt8(unit >> 12), 0x80 | UInt8((unit >> 6) & 0x3F), 0x80 | UInt8(unit & 0x3F)]
            }
        }
        return out
    }
}

private func u16(_ v: UInt16) -> [UInt8] { ClassFileWriter.u16(v) }
