import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.constant.ClassDesc;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Build step of the switchd jar: rewrites the class files under the given package prefixes that are older than Java 6
 * (version < 50) as Java 8 class files (version 52) with stack maps, in place in the jar. Java 25's AOT cache cannot
 * hold classes older than version 50 (they need the old verifier; "Old class has been linked"), nor any class that
 * links against them; picocli 4.7 ships Java 5 class files, so every start of asic-emu loaded, parsed and verified
 * its 171 classes again (docs/LAB.md session 9). The bytecode is unchanged: only the version and the stack maps the
 * new verifier reads are added.
 * Usage: java ModernizeClasses.java JAR PREFIX...  (PREFIX e.g. picocli/)
 */
public final class ModernizeClasses {
    public static void main(final String[] args) throws IOException {
        final Path jar = Path.of(args[0]);
        final List<String> prefixes = List.of(args).subList(1, args.length);
        try (FileSystem fs = FileSystems.newFileSystem(URI.create("jar:" + jar.toUri()), Map.of())) {
            final Path root = fs.getPath("/");
            // resolves the hierarchy from the jar's own classes first, then the JDK's
            final ClassHierarchyResolver resolver = ClassHierarchyResolver.ofResourceParsing((ClassDesc desc) -> {
                        final String descriptor = desc.descriptorString();
                        final Path file = root.resolve(descriptor.substring(1, descriptor.length() - 1) + ".class");
                        try {
                            return Files.exists(file) ? Files.newInputStream(file) : null;
                        } catch (final IOException e) {
                            return null;
                        }
                    })
                    .orElse(ClassHierarchyResolver.defaultResolver());
            final ClassFile classFile = ClassFile.of(
                    ClassFile.StackMapsOption.GENERATE_STACK_MAPS, ClassFile.ClassHierarchyResolverOption.of(resolver));
            int rewritten = 0;
            final List<Path> files;
            try (Stream<Path> walk = Files.walk(root)) {
                files = walk.filter(p -> p.toString().endsWith(".class"))
                        .filter(p -> prefixes.stream().anyMatch(prefix -> p.toString().startsWith("/" + prefix)))
                        .toList();
            }
            for (final Path file : files) {
                final byte[] bytes = Files.readAllBytes(file);
                final ClassModel model = classFile.parse(bytes);
                if (model.majorVersion() >= ClassFile.JAVA_6_VERSION) {
                    continue;
                }
                // the bodies rebuilt (so that stack maps are generated), then the version set
                final ClassTransform toJava8 = ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                        .andThen(ClassTransform.endHandler(
                                builder -> builder.withVersion(ClassFile.JAVA_8_VERSION, 0)));
                final byte[] modern = classFile.transformClass(model, toJava8);
                Files.write(file, modern);
                rewritten++;
            }
            System.out.println("ModernizeClasses: " + rewritten + " class files of " + prefixes + " now version 52");
        }
    }
}
