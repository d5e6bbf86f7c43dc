package io.ioscale.types;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Type information for a class that has its own {@link TypeSerializer}: what a {@code TypeInfoFactory} returns so
 * that Flink uses that serializer wherever it meets the class (streams, state, side outputs). Not a key type.
 */
public final class SerializerTypeInfo<T> extends TypeInformation<T> {
    private static final long serialVersionUID = 1L;

    private final Class<T> type;
    private final TypeSerializer<T> serializer;

    public SerializerTypeInfo(Class<T> type, TypeSerializer<T> serializer) {
        this.type = type;
        this.serializer = serializer;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<T> getTypeClass() {
        return type;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
        return serializer.duplicate();
    }

    @Override
    public String toString() {
        return type.getSimpleName() + "(" + serializer.getClass().getSimpleName() + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SerializerTypeInfo<?> other && other.canEqual(this) && type == other.type
                && serializer.equals(other.serializer);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + serializer.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o instanceof SerializerTypeInfo;
    }

    /**
     * Base of the {@code TypeInfoFactory} a class names in its {@code @TypeInfo}: a subclass with a no-arg
     * constructor (Flink instantiates it) passes the class and its serializer.
     */
    public abstract static class Factory<T> extends TypeInfoFactory<T> {
        private final SerializerTypeInfo<T> info;

        protected Factory(Class<T> type, TypeSerializer<T> serializer) {
            this.info = new SerializerTypeInfo<>(type, serializer);
        }

        /** The same instance each time: it is immutable, and each serializer it creates is a duplicate. */
        @Override
        public TypeInformation<T> createTypeInfo(Type t, Map<String, TypeInformation<?>> generics) {
            return info;
        }
    }
}
