/**
 * The type a response DTO class implements so that it and its resource
 * interface cannot drift apart: `class XDto implements Describes<XResource, XDto>`.
 * The build then fails when the DTO lacks a field of the resource or gives
 * one another type (`implements` checks it), and when the DTO names a field
 * the resource does not have (the type is `never`, which no class can implement).
 *
 * The resource interfaces are what the routes return; the DTO classes carry
 * the OpenAPI description of the same JSON (decorators, examples).
 */
export type Describes<Resource, Dto> = Exclude<keyof Dto, keyof Resource> extends never ? Resource : never;
