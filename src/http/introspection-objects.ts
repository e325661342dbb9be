import {
  getNamedType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

/**
 * The objects a `__schema` or `__type` field answers: every type, field, argument, enum value and
 * directive it lists, and every `type` and `ofType` it follows, found by graphql-js's own introspection
 * resolvers on the schema (deprecated members count as if asked for). `__type` with a literal name
 * counts that type; with a variable, every type. Counting stops once past `budget` and answers
 * Infinity: measuring a hostile selection costs no more than `budget` objects.
 */
export function introspectionObjects(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  field: FieldNode,
  budget: number,
): number {
  let counted = 0;
  // What graphql-js's introspection resolvers read of their arguments and info.
  const allMembers = { includeDeprecated: true };
  const info = { schema } as GraphQLResolveInfo;
  const objects = (selectionSet: SelectionSetNode, type: GraphQLObjectType, value: unknown): void => {
    for (const element of Array.isArray(value) ? value : value == null ? [] : [value]) {
      if (++counted > budget) return;
      fieldsOf(selectionSet, type, element);
    }
  };
  const fieldsOf = (selectionSet: SelectionSetNode, type: GraphQLObjectType, element: unknown): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind !== Kind.FIELD) {
        // Fragments inside introspection are on the introspection type at hand.
        const inner =
          selection.kind === Kind.INLINE_FRAGMENT
            ? selection.selectionSet
            : fragments[selection.name.value]?.selectionSet;
        if (inner) fieldsOf(inner, type, element);
        continue;
      }
      if (!selection.selectionSet) continue;
      const definition = type.getFields()[selection.name.value];
      if (!definition?.resolve) continue;
      objects(
        selection.selectionSet,
        getNamedType(definition.type) as GraphQLObjectType,
        definition.resolve(element, allMembers, undefined, info),
      );
    }
  };

  if (!field.selectionSet) return 0;
  if (field.name.value === SchemaMetaFieldDef.name) {
    objects(field.selectionSet, getNamedType(SchemaMetaFieldDef.type) as GraphQLObjectType, schema);
  } else {
    const name = field.arguments?.find((argument) => argument.name.value === 'name')?.value;
    const types = name?.kind === Kind.STRING ? schema.getType(name.value) : Object.values(schema.getTypeMap());
    objects(field.selectionSet, getNamedType(TypeMetaFieldDef.type) as GraphQLObjectType, types);
  }
  return counted > budget ? Infinity : counted;
}
