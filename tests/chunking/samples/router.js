import express from "express";
import { loadUser } from "./users.js";

// Matches a path pattern like /users/:id against a request path.
function matchPath(pattern, path) {
  const names = [];
  const regex = pattern.replace(/:(\w+)/g, (_, name) => {
    names.push(name);
    return "([^/]+)";
  });
  const found = new RegExp(`^${regex}$`).exec(path);
  if (!found) return null;
  return Object.fromEntries(names.map((name, i) => [name, found[i + 1]]));
}

export class Router {
  constructor() {
    this.routes = [];
  }

  add(method, pattern, handler) {
    this.routes.push({ method, pattern, handler });
    return this;
  }

  dispatch(request) {
    for (const route of this.routes) {
      const params = route.method === request.method && matchPath(route.pattern, request.path);
      if (params) return route.handler({ ...request, params });
    }
    return { status: 404, body: "not found" };
  }
}

export const userHandler = async ({ params }) => ({ status: 200, body: await loadUser(params.id) });
